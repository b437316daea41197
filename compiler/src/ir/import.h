// Converts a prepared (checked, shape-inferred) ModelProto into the IR.
#pragma once
#include <string>

#include <onnx/onnx_pb.h>

#include "ir/graph.h"

namespace edgefold::compiler::ir {

// Initializers (also those listed as graph inputs) become constants. Every tensor gets the
// shape ONNX inferred, when it inferred one. Throws CompileError.
Graph ImportGraph(const onnx::ModelProto& model, const std::string& model_name);

// Reads a TensorProto's values (float, double, int8/16/32/64, uint8, bool; raw or typed).
Tensor TensorFromProto(const onnx::TensorProto& proto, const std::string& where);

}  // namespace edgefold::compiler::ir
