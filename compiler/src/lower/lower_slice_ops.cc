// Slice, Split (→ one Slice per output) and ReduceMean (→ GlobalAveragePool over trailing
// spatial axes).
#include <algorithm>

#include "lower/lower_context.h"
#include "passes/const_eval.h"

namespace edgefold::compiler {
namespace {

std::vector<int64_t> ConstInts(LowerContext& ctx, const ir::Node& n, size_t input, const char* attr,
                               const char* what) {
  if (n.In(input).empty()) return n.Ints(attr, {});
  if (!ctx.graph().IsConst(n.inputs[input]))
    throw CompileError(n.Msg(std::string("input '") + what + "' must be a constant"));
  const auto& d = ctx.Ir(n, input).data;
  return std::vector<int64_t>(d.begin(), d.end());
}

void AddSlice(LowerContext& ctx, const ir::Node& n, int x, int y, std::vector<int32_t> starts,
              std::vector<int32_t> steps) {
  fb::SliceOptionsT opt;
  opt.starts = std::move(starts);
  opt.steps = std::move(steps);
  ctx.AddOp(fb::OpType::Slice, n, {x}, {y}).options.Set(std::move(opt));
}

}  // namespace

// ONNX Slice: per listed axis, start (negative counts from the end, clamped like ONNX) and
// step; the extent is the inferred output shape.
void LowerSlice(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const std::vector<int64_t> xs = ctx.Shape(x);
  const int64_t rank = static_cast<int64_t>(xs.size());
  const bool legacy = ctx.graph().opset < 10;
  const std::vector<int64_t> starts = ConstInts(ctx, n, legacy ? 99 : 1, "starts", "starts");
  std::vector<int64_t> axes = ConstInts(ctx, n, legacy ? 99 : 3, "axes", "axes");
  std::vector<int64_t> steps = legacy ? std::vector<int64_t>() : ConstInts(ctx, n, 4, "steps", "steps");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    throw CompileError(n.Msg("starts, axes and steps differ in length"));
  std::vector<int32_t> s(rank, 0), k(rank, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = passes::NormalizeAxis(n, axes[i], rank), d = xs[a];
    if (steps[i] == 0) throw CompileError(n.Msg("step 0"));
    int64_t start = starts[i] < 0 ? starts[i] + d : starts[i];
    start = steps[i] > 0 ? std::clamp<int64_t>(start, 0, d) : std::clamp<int64_t>(start, 0, d - 1);
    s[a] = ToInt32(n, start, "start");
    k[a] = ToInt32(n, steps[i], "step");
  }
  for (int64_t d : ctx.Shape(y))
    if (d <= 0) throw CompileError(n.Msg("empty slice " + ir::ShapeString(ctx.Shape(y)) + " is unsupported"));
  AddSlice(ctx, n, x, y, s, k);
}

// Split along `axis` into the outputs' inferred extents, each a Slice.
void LowerSplit(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int64_t rank = static_cast<int64_t>(ctx.Shape(x).size());
  const int64_t axis = passes::NormalizeAxis(n, n.Int("axis", 0), rank);
  int64_t offset = 0;
  for (const std::string& out : n.outputs) {
    const int y = ctx.Tensor(n, out);
    std::vector<int32_t> s(rank, 0), k(rank, 1);
    s[axis] = ToInt32(n, offset, "split offset");
    offset += ctx.Shape(y)[axis];
    AddSlice(ctx, n, x, y, s, k);
  }
  if (offset != ctx.Shape(x)[axis])
    throw CompileError(n.Msg("outputs cover " + std::to_string(offset) + " of " +
                             std::to_string(ctx.Shape(x)[axis]) + " along axis " + std::to_string(axis)));
}

// ReduceMean over all trailing spatial axes (2..rank−1) = GlobalAveragePool (+ Reshape when
// keepdims=0). Other axis sets are unsupported.
void LowerReduceMean(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const std::vector<int64_t> xs = ctx.Shape(x);
  const int64_t rank = static_cast<int64_t>(xs.size());
  std::vector<int64_t> axes = ConstInts(ctx, n, 1, "axes", "axes");
  for (int64_t& a : axes) a = passes::NormalizeAxis(n, a, rank);
  std::sort(axes.begin(), axes.end());
  std::vector<int64_t> spatial;
  for (int64_t a = 2; a < rank; ++a) spatial.push_back(a);
  if (rank < 3 || axes != spatial)
    throw CompileError(n.Msg("only a mean over all spatial axes 2.." + std::to_string(rank - 1) +
                             " is supported (as GlobalAveragePool)"));
  fb::GlobalPoolOptionsT opt;
  opt.kind = fb::PoolKind::Average;
  if (n.Int("keepdims", 1) != 0) {
    ctx.AddOp(fb::OpType::GlobalPool, n, {x}, {y}).options.Set(std::move(opt));
    return;
  }
  std::vector<int64_t> kept(xs.begin(), xs.begin() + 2);
  kept.resize(static_cast<size_t>(rank), 1);
  const int pooled = ctx.NewTensor(n.name + "_pooled", kept, false, {});
  ctx.AddOp(fb::OpType::GlobalPool, n, {x}, {pooled}).options.Set(std::move(opt));
  ctx.AddOp(fb::OpType::Reshape, n, {pooled}, {y}).options.Set(fb::ReshapeOptionsT());
}

}  // namespace edgefold::compiler
