#include "passes/const_eval.h"

#include <cmath>
#include <set>

#include "passes/const_eval_ops.h"

namespace edgefold::compiler::passes {
namespace const_eval {
using ir::Node;
using ir::Tensor;

Tensor EvalConstant(const Node& n) {
  if (n.Has("value")) return n.attrs.at("value").t;
  if (n.Has("value_float")) return Make({}, {n.Float("value_float", 0)}, ir::kFloat);
  if (n.Has("value_int")) return Make({}, {static_cast<double>(n.Int("value_int", 0))}, ir::kInt64);
  if (n.Has("value_floats")) {
    const auto& f = n.attrs.at("value_floats").floats;
    return Make({static_cast<int64_t>(f.size())}, f, ir::kFloat);
  }
  if (n.Has("value_ints")) {
    const auto& v = n.attrs.at("value_ints").ints;
    return Make({static_cast<int64_t>(v.size())}, std::vector<double>(v.begin(), v.end()),
                ir::kInt64);
  }
  throw CompileError(n.Msg("Constant without a supported value attribute"));
}

Tensor EvalShape(const Tensor& x, const Node& n) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t start = n.Int("start", 0), end = n.Int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::max<int64_t>(0, std::min(start, rank));
  end = std::max<int64_t>(start, std::min(end, rank));
  std::vector<double> d(x.shape.begin() + start, x.shape.begin() + end);
  return Make({end - start}, d, ir::kInt64);
}

Tensor EvalGather(const Tensor& x, const Tensor& idx, const Node& n) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = NormalizeAxis(n, n.Int("axis", 0), rank);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < rank; ++i) inner *= x.shape[i];
  const int64_t dim = x.shape[axis];
  std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + axis);
  shape.insert(shape.end(), idx.shape.begin(), idx.shape.end());
  shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o)
    for (double iv : idx.data) {
      int64_t k = static_cast<int64_t>(iv);
      if (k < 0) k += dim;
      if (k < 0 || k >= dim)
        throw CompileError(
            n.Msg("index " + std::to_string(static_cast<int64_t>(iv)) + " out of range"));
      for (int64_t i = 0; i < inner; ++i) out.push_back(x.data[(o * dim + k) * inner + i]);
    }
  return Make(shape, out, x.dtype);
}

Tensor EvalUnsqueeze(const Tensor& x, const std::vector<int64_t>& axes_in, const Node& n) {
  const int64_t rank = static_cast<int64_t>(x.shape.size() + axes_in.size());
  std::set<int64_t> axes;
  for (int64_t a : axes_in) axes.insert(NormalizeAxis(n, a, rank));
  std::vector<int64_t> shape;
  size_t src = 0;
  for (int64_t i = 0; i < rank; ++i) shape.push_back(axes.count(i) ? 1 : x.shape[src++]);
  return Make(shape, x.data, x.dtype);
}

Tensor EvalSqueeze(const Tensor& x, const std::vector<int64_t>& axes_in, const Node& n) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::set<int64_t> axes;
  for (int64_t a : axes_in) axes.insert(NormalizeAxis(n, a, rank));
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    const bool drop = axes.empty() ? x.shape[i] == 1 : axes.count(i) != 0;
    if (drop && x.shape[i] != 1)
      throw CompileError(n.Msg("cannot squeeze a dim of size " + std::to_string(x.shape[i])));
    if (!drop) shape.push_back(x.shape[i]);
  }
  return Make(shape, x.data, x.dtype);
}

Tensor EvalConcat(const std::vector<const Tensor*>& xs, const Node& n) {
  const int64_t rank = static_cast<int64_t>(xs[0]->shape.size());
  const int64_t axis = NormalizeAxis(n, n.Int("axis", 0), rank);
  std::vector<int64_t> shape = xs[0]->shape;
  shape[axis] = 0;
  for (const Tensor* t : xs) {
    if (static_cast<int64_t>(t->shape.size()) != rank)
      throw CompileError(n.Msg("inputs differ in rank"));
    shape[axis] += t->shape[axis];
  }
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor* t : xs) {
      const int64_t chunk = ir::NumElements(t->shape) / std::max<int64_t>(outer, 1);
      out.insert(out.end(), t->data.begin() + o * chunk, t->data.begin() + (o + 1) * chunk);
    }
  return Make(shape, out, xs[0]->dtype);
}

}  // namespace const_eval

int64_t NormalizeAxis(const ir::Node& node, int64_t axis, int64_t rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1))
    throw CompileError(node.Msg("axis " + std::to_string(axis) + " out of range for rank " +
                                std::to_string(rank)));
  return a;
}

std::vector<int64_t> BroadcastShapes(const ir::Node& node, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw CompileError(node.Msg("shapes " + ir::ShapeString(a) + " and " + ir::ShapeString(b) +
                                  " do not broadcast"));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t BroadcastIndex(const std::vector<int64_t>& out, const std::vector<int64_t>& in,
                       int64_t flat) {
  int64_t index = 0, stride = 1;
  const size_t offset = out.size() - in.size();
  for (size_t i = out.size(); i-- > 0;) {
    const int64_t coord = flat % out[i];
    flat /= out[i];
    if (i < offset) continue;
    const int64_t d = in[i - offset];
    if (d != 1) index += coord * stride;
    stride *= d;
  }
  return index;
}

}  // namespace edgefold::compiler::passes
