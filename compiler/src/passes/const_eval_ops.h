// Per-op evaluators behind EvalConst (internal to the passes).
#pragma once
#include <vector>

#include "ir/graph.h"

namespace edgefold::compiler::passes::const_eval {

inline ir::Tensor Make(std::vector<int64_t> shape, std::vector<double> data, int32_t dtype) {
  ir::Tensor t;
  t.shape = std::move(shape);
  t.shape_known = true;
  t.is_const = true;
  t.dtype = dtype;
  t.data = std::move(data);
  return t;
}

inline std::vector<int64_t> AsInts(const ir::Tensor& t) {
  return std::vector<int64_t>(t.data.begin(), t.data.end());
}

ir::Tensor EvalConstant(const ir::Node& n);
ir::Tensor EvalShape(const ir::Tensor& x, const ir::Node& n);
ir::Tensor EvalGather(const ir::Tensor& x, const ir::Tensor& idx, const ir::Node& n);
ir::Tensor EvalUnsqueeze(const ir::Tensor& x, const std::vector<int64_t>& axes, const ir::Node& n);
ir::Tensor EvalSqueeze(const ir::Tensor& x, const std::vector<int64_t>& axes, const ir::Node& n);
ir::Tensor EvalConcat(const std::vector<const ir::Tensor*>& xs, const ir::Node& n);
// Reshape semantics shared with lowering: 0 copies the input dim (unless allowzero), -1 infers.
std::vector<int64_t> ReshapeTarget(const std::vector<int64_t>& in, const std::vector<int64_t>& spec,
                                   bool allowzero, const ir::Node& n);
ir::Tensor EvalCast(const ir::Tensor& x, const ir::Node& n);
// Add, Sub, Mul, Div and Equal (a bool result).
ir::Tensor EvalBinary(const ir::Tensor& a, const ir::Tensor& b, const ir::Node& n);
ir::Tensor EvalWhere(const ir::Tensor& c, const ir::Tensor& x, const ir::Tensor& y,
                     const ir::Node& n);
ir::Tensor EvalTranspose(const ir::Tensor& x, const ir::Node& n);
// Slice with ONNX clamping; starts/ends/axes/steps already read from inputs or attributes.
ir::Tensor EvalSlice(const ir::Tensor& x, const std::vector<int64_t>& starts,
                     const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                     std::vector<int64_t> steps, const ir::Node& n);

}  // namespace edgefold::compiler::passes::const_eval
