// A small host evaluator for shape-computation subgraphs (PyTorch's flatten/reshape chains):
// Constant, Shape, Gather, Unsqueeze, Squeeze, Concat, Reshape, Flatten, Cast, Add, Sub,
// Mul, Div, Transpose, ConstantOfShape, Identity, Slice, Floor, Ceil, Expand, Equal, Where.
#pragma once
#include <vector>

#include "ir/graph.h"

namespace edgefold::compiler::passes {

// True when `node` can be evaluated now (supported op, operands constant or, for Shape,
// the input shape known).
bool CanEvalConst(const ir::Graph& graph, const ir::Node& node);

// Evaluates `node`; returns one constant tensor per output. Throws CompileError.
std::vector<ir::Tensor> EvalConst(const ir::Graph& graph, const ir::Node& node);

// Numpy broadcast of two shapes; throws naming `node` when incompatible.
std::vector<int64_t> BroadcastShapes(const ir::Node& node, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b);

// Row-major index into an operand of shape `in` broadcast to `out`, for output index `flat`.
int64_t BroadcastIndex(const std::vector<int64_t>& out, const std::vector<int64_t>& in,
                       int64_t flat);

// Normalizes a possibly negative axis for a tensor of `rank`; throws naming the node.
int64_t NormalizeAxis(const ir::Node& node, int64_t axis, int64_t rank);

}  // namespace edgefold::compiler::passes
