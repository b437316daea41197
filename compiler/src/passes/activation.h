// ONNX activation nodes ↔ the schema's fused Activation epilogue.
#pragma once
#include "ir/graph.h"

namespace edgefold::compiler::passes {

// Relu … SiLU and the unary math ops (IsUnaryMathOp): each becomes one ActKind.
bool IsActivationOp(const std::string& op);
// Tanh, Exp, Log, Sqrt, Reciprocal, Neg, Abs, Erf, Gelu (internal or opset 20), Pow (constant exponent).
bool IsUnaryMathOp(const std::string& op);
// The kinds FuseActivations puts into a producer's epilogue: the ones typical after a conv or
// a dense layer (Relu … SiLU, Tanh, Gelu). The other unary math ops stay stand-alone.
bool FusableIntoProducer(kernels::ActKind kind);
// Reads the activation's parameters (Clip min/max from constant inputs, defaults ±inf; Pow's
// constant exponent, throwing naming the node when it is not one constant value).
kernels::Activation ParseActivation(const ir::Graph& graph, const ir::Node& node);

}  // namespace edgefold::compiler::passes
