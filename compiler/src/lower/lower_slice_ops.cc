// Slice and Split (→ one Slice per output).
#include <algorithm>

#include "lower/lower_context.h"
#include "passes/const_eval.h"

namespace edgefold::compiler {
namespace {

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
  std::vector<int64_t> steps =
      legacy ? std::vector<int64_t>() : ConstInts(ctx, n, 4, "steps", "steps");
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
    if (d <= 0)
      throw CompileError(n.Msg("empty slice " + ir::ShapeString(ctx.Shape(y)) + " is unsupported"));
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
                             std::to_string(ctx.Shape(x)[axis]) + " along axis " +
                             std::to_string(axis)));
}

}  // namespace edgefold::compiler
