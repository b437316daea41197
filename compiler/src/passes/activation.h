// ONNX activation nodes ↔ the schema's fused Activation epilogue.
#pragma once
#include "ir/graph.h"

namespace edgefold::compiler::passes {

bool IsActivationOp(const std::string& op);
// Reads the activation's parameters (Clip min/max from constant inputs, defaults ±inf).
kernels::Activation ParseActivation(const ir::Graph& graph, const ir::Node& node);

}  // namespace edgefold::compiler::passes
