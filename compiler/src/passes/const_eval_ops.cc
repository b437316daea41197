#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "passes/const_eval.h"
#include "passes/const_eval_ops.h"

namespace edgefold::compiler::passes::const_eval {
using ir::Node;
using ir::Tensor;

namespace {
bool IsIntType(int32_t dtype) {
  return dtype == ir::kInt64 || dtype == ir::kInt32 || dtype == ir::kInt8 || dtype == ir::kUint8 ||
         dtype == ir::kBool;
}
}  // namespace

std::vector<int64_t> ReshapeTarget(const std::vector<int64_t>& in, const std::vector<int64_t>& spec,
                                   bool allowzero, const Node& n) {
  std::vector<int64_t> out(spec);
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allowzero) {
      if (i >= in.size())
        throw CompileError(n.Msg("shape entry 0 at " + std::to_string(i) + " has no input dim"));
      out[i] = in[i];
    }
    if (out[i] == -1) {
      if (infer >= 0) throw CompileError(n.Msg("shape has more than one -1"));
      infer = static_cast<int>(i);
    } else if (out[i] < 0) {
      throw CompileError(n.Msg("invalid shape entry " + std::to_string(out[i])));
    } else {
      known *= out[i];
    }
  }
  const int64_t total = ir::NumElements(in);
  if (infer >= 0) {
    if (known == 0 || total % known)
      throw CompileError(n.Msg("cannot infer -1 in reshape of " + ir::ShapeString(in)));
    out[infer] = total / known;
  }
  if (ir::NumElements(out) != total)
    throw CompileError(
        n.Msg("cannot reshape " + ir::ShapeString(in) + " to " + ir::ShapeString(spec)));
  return out;
}

Tensor EvalCast(const Tensor& x, const Node& n) {
  const int32_t to = static_cast<int32_t>(n.Int("to", ir::kFloat));
  std::vector<double> out(x.data);
  for (double& v : out) {
    if (to == ir::kFloat)
      v = static_cast<float>(v);
    else if (to == ir::kBool)
      v = v != 0;
    else if (IsIntType(to))
      v = std::trunc(v);
  }
  return Make(x.shape, out, to);
}

Tensor EvalBinary(const Tensor& a, const Tensor& b, const Node& n) {
  const std::vector<int64_t> shape = BroadcastShapes(n, a.shape, b.shape);
  const int64_t count = ir::NumElements(shape);
  const bool ints = IsIntType(a.dtype);
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const double x = a.data[BroadcastIndex(shape, a.shape, i)];
    const double y = b.data[BroadcastIndex(shape, b.shape, i)];
    double r = 0;
    if (n.op == "Add")
      r = x + y;
    else if (n.op == "Equal")
      r = x == y ? 1.0 : 0.0;
    else if (n.op == "Sub")
      r = x - y;
    else if (n.op == "Mul")
      r = x * y;
    else {
      if (ints && y == 0) throw CompileError(n.Msg("integer division by zero"));
      r = ints ? std::trunc(x / y) : x / y;
    }
    out[i] = a.dtype == ir::kFloat ? static_cast<float>(r) : r;
  }
  return Make(shape, out, n.op == "Equal" ? ir::kBool : a.dtype);
}

// Where(c, x, y) = c ? x : y, broadcast over all three (PyTorch's expand(-1) shape arithmetic).
Tensor EvalWhere(const Tensor& c, const Tensor& x, const Tensor& y, const Node& n) {
  const std::vector<int64_t> shape =
      BroadcastShapes(n, BroadcastShapes(n, c.shape, x.shape), y.shape);
  std::vector<double> out(static_cast<size_t>(ir::NumElements(shape)));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t f = static_cast<int64_t>(i);
    out[i] = c.data[BroadcastIndex(shape, c.shape, f)] != 0
                 ? x.data[BroadcastIndex(shape, x.shape, f)]
                 : y.data[BroadcastIndex(shape, y.shape, f)];
  }
  return Make(shape, out, x.dtype);
}

Tensor EvalTranspose(const Tensor& x, const Node& n) {
  const size_t rank = x.shape.size();
  std::vector<int64_t> perm = n.Ints("perm", {});
  if (perm.empty())
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
  if (perm.size() != rank) throw CompileError(n.Msg("attribute 'perm' has the wrong length"));
  std::vector<int64_t> shape(rank), in_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * x.shape[i];
  for (size_t i = 0; i < rank; ++i)
    shape[i] = x.shape[NormalizeAxis(n, perm[i], static_cast<int64_t>(rank))];
  const int64_t count = ir::NumElements(shape);
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rem = flat, src = 0;
    for (size_t i = rank; i-- > 0;) {
      src += (rem % shape[i]) * in_strides[perm[i] < 0 ? perm[i] + rank : perm[i]];
      rem /= shape[i];
    }
    out[flat] = x.data[src];
  }
  return Make(shape, out, x.dtype);
}

Tensor EvalSlice(const Tensor& x, const std::vector<int64_t>& starts,
                 const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                 std::vector<int64_t> steps, const Node& n) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    throw CompileError(n.Msg("starts, ends, axes and steps differ in length"));
  std::vector<int64_t> first(rank, 0), step(rank, 1), shape(x.shape);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = NormalizeAxis(n, axes[i], rank), d = x.shape[a], k = steps[i];
    if (k == 0) throw CompileError(n.Msg("step 0"));
    int64_t s = starts[i] < 0 ? starts[i] + d : starts[i], e = ends[i] < 0 ? ends[i] + d : ends[i];
    s = k > 0 ? std::clamp<int64_t>(s, 0, d) : std::clamp<int64_t>(s, 0, d - 1);
    e = k > 0 ? std::clamp<int64_t>(e, 0, d) : std::clamp<int64_t>(e, -1, d - 1);
    first[a] = s;
    step[a] = k;
    shape[a] = std::max<int64_t>(0, k > 0 ? (e - s + k - 1) / k : (s - e - k - 1) / -k);
  }
  const int64_t count = ir::NumElements(shape);
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rem = flat, src = 0, stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      src += (first[d] + (rem % shape[d]) * step[d]) * stride;
      rem /= shape[d];
      stride *= x.shape[d];
    }
    out[flat] = x.data[src];
  }
  return Make(shape, out, x.dtype);
}

// Floor or Ceil (Upsample sizes computed as floor(dim · scale)).
Tensor EvalRounding(Tensor t, bool floor) {
  for (double& v : t.data) v = floor ? std::floor(v) : std::ceil(v);
  return t;
}

// PyTorch's zero initial state: Expand(0, [D, batch, hidden]).
Tensor EvalExpand(const Tensor& x, const std::vector<int64_t>& to, const Node& n) {
  const std::vector<int64_t> shape = BroadcastShapes(n, x.shape, to);
  std::vector<double> out(static_cast<size_t>(ir::NumElements(shape)));
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = x.data[BroadcastIndex(shape, x.shape, static_cast<int64_t>(i))];
  return Make(shape, out, x.dtype);
}

Tensor EvalFlatten(Tensor t, const Node& n) {
  const int64_t rank = static_cast<int64_t>(t.shape.size());
  const int64_t axis = n.Int("axis", 1) < 0 ? n.Int("axis", 1) + rank : n.Int("axis", 1);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis && i < rank; ++i) outer *= t.shape[i];
  t.shape = {outer, ir::NumElements(t.shape) / std::max<int64_t>(outer, 1)};
  return t;
}

Tensor EvalConstantOfShape(const std::vector<int64_t>& shape, const Node& n) {
  Tensor value = n.Has("value") ? n.attrs.at("value").t : Make({1}, {0.0}, ir::kFloat);
  if (value.data.size() != 1) throw CompileError(n.Msg("attribute 'value' must hold one element"));
  return Make(shape,
              std::vector<double>(static_cast<size_t>(ir::NumElements(shape)), value.data[0]),
              value.dtype);
}

}  // namespace edgefold::compiler::passes::const_eval

namespace edgefold::compiler::passes {
using namespace const_eval;

bool CanEvalConst(const ir::Graph& g, const ir::Node& n) {
  static const std::set<std::string> kOps = {
      "Constant", "Shape",   "Gather",  "Unsqueeze", "Squeeze",
      "Concat",   "Reshape", "Flatten", "Cast",      "Add",
      "Sub",      "Mul",     "Div",     "Transpose", "ConstantOfShape",
      "Identity", "Slice",   "Floor",   "Ceil",      "Expand",
      "Equal",    "Where"};
  if (!kOps.count(n.op)) return false;
  if (n.op == "Shape") return !n.inputs.empty() && g.At(n.inputs[0]).shape_known;
  for (const std::string& in : n.inputs)
    if (!in.empty() && !g.IsConst(in)) return false;
  return true;
}

std::vector<Tensor> EvalConst(const ir::Graph& g, const Node& n) {
  auto in = [&](size_t i) -> const Tensor& {
    if (n.In(i).empty()) throw CompileError(n.Msg("missing input " + std::to_string(i)));
    return g.At(n.inputs[i]);
  };
  auto optional_ints = [&](size_t i, const char* attr) {
    return n.In(i).empty() ? n.Ints(attr, {}) : AsInts(g.At(n.inputs[i]));
  };
  const std::string& op = n.op;
  if (op == "Constant") return {EvalConstant(n)};
  if (op == "Shape") return {EvalShape(in(0), n)};
  if (op == "Identity") return {in(0)};
  if (op == "Gather") return {EvalGather(in(0), in(1), n)};
  if (op == "Unsqueeze") return {EvalUnsqueeze(in(0), optional_ints(1, "axes"), n)};
  if (op == "Squeeze") return {EvalSqueeze(in(0), optional_ints(1, "axes"), n)};
  if (op == "Cast") return {EvalCast(in(0), n)};
  if (op == "Floor" || op == "Ceil") return {EvalRounding(in(0), op == "Floor")};
  if (op == "Slice") {
    if (g.opset < 10)
      return {
          EvalSlice(in(0), n.Ints("starts", {}), n.Ints("ends", {}), n.Ints("axes", {}), {}, n)};
    return {EvalSlice(in(0), AsInts(in(1)), AsInts(in(2)), optional_ints(3, "axes"),
                      optional_ints(4, "steps"), n)};
  }
  if (op == "Transpose") return {EvalTranspose(in(0), n)};
  if (op == "Expand") {
    const Tensor& x = in(0);
    return {EvalExpand(x, AsInts(in(1)), n)};
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal")
    return {EvalBinary(in(0), in(1), n)};
  if (op == "Where") return {EvalWhere(in(0), in(1), in(2), n)};
  if (op == "Concat") {
    std::vector<const Tensor*> xs;
    for (size_t i = 0; i < n.inputs.size(); ++i) xs.push_back(&in(i));
    return {EvalConcat(xs, n)};
  }
  if (op == "Reshape") {
    Tensor t = in(0);
    t.shape = ReshapeTarget(t.shape, AsInts(in(1)), n.Int("allowzero", 0) != 0, n);
    return {t};
  }
  if (op == "Flatten") return {EvalFlatten(in(0), n)};
  return {EvalConstantOfShape(AsInts(in(0)), n)};  // ConstantOfShape
}

}  // namespace edgefold::compiler::passes
