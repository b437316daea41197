// Gather with constant indices (PyTorch's x[:, -1, :] on a sequence) → Slices, a Concat when
// there are several, a Reshape to the indices' shape; Expand of an activation → Expand.
#include "lower/lower_context.h"
#include "passes/const_eval.h"

namespace edgefold::compiler {

// y = x.take(indices, axis): one unit-extent Slice per index along `axis`, concatenated into
// [.., count, ..], then reshaped to the output's [.., indices' shape, ..].
void LowerGather(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (n.In(1).empty() || !ctx.graph().IsConst(n.inputs[1]))
    throw CompileError(n.Msg("input 'indices' must be a constant"));
  const std::vector<int64_t> xs = ctx.Shape(x);
  const int64_t rank = static_cast<int64_t>(xs.size());
  const int64_t axis = passes::NormalizeAxis(n, n.Int("axis", 0), rank);
  const std::vector<double>& idx = ctx.Ir(n, 1).data;
  if (idx.empty()) throw CompileError(n.Msg("empty 'indices' are unsupported"));
  std::vector<int64_t> unit = xs, gathered = xs;
  unit[axis] = 1;
  gathered[axis] = static_cast<int64_t>(idx.size());
  if (ir::NumElements(gathered) != ir::NumElements(ctx.Shape(y)))
    throw CompileError(n.Msg("output " + ir::ShapeString(ctx.Shape(y)) + " does not hold " +
                             std::to_string(idx.size()) + " slices of " + ir::ShapeString(xs) +
                             " along axis " + std::to_string(axis)));
  const bool direct = gathered == ctx.Shape(y);
  std::vector<int> parts;
  for (double v : idx) {
    int64_t i = static_cast<int64_t>(v);
    if (i < -xs[axis] || i >= xs[axis])
      throw CompileError(n.Msg("index " + std::to_string(i) + " is out of range for dim " +
                               std::to_string(xs[axis])));
    if (i < 0) i += xs[axis];
    const int part =
        idx.size() == 1 && direct ? y : ctx.NewTensor(n.name + "_slice", unit, false, {});
    fb::SliceOptionsT opt;
    opt.starts.assign(static_cast<size_t>(rank), 0);
    opt.starts[static_cast<size_t>(axis)] = ToInt32(n, i, "index");
    opt.steps.assign(static_cast<size_t>(rank), 1);
    ctx.AddOp(fb::OpType::Slice, n, {x}, {part}).options.Set(std::move(opt));
    parts.push_back(part);
  }
  int joined = parts[0];
  if (parts.size() > 1) {
    joined = direct ? y : ctx.NewTensor(n.name + "_gathered", gathered, false, {});
    fb::ConcatOptionsT opt;
    opt.axis = static_cast<int32_t>(axis);
    ctx.AddOp(fb::OpType::Concat, n, parts, {joined}).options.Set(std::move(opt));
  }
  if (joined != y)
    ctx.AddOp(fb::OpType::Reshape, n, {joined}, {y}).options.Set(fb::ReshapeOptionsT());
}

// Expand: x broadcast (numpy rules) to the inferred output shape.
void LowerExpand(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (passes::BroadcastShapes(n, ctx.Shape(x), ctx.Shape(y)) != ctx.Shape(y))
    throw CompileError(n.Msg("input " + ir::ShapeString(ctx.Shape(x)) +
                             " does not broadcast to output " + ir::ShapeString(ctx.Shape(y))));
  if (ctx.Shape(y).size() > 6) throw CompileError(n.Msg("output rank above 6 is unsupported"));
  ctx.AddOp(fb::OpType::Expand, n, {x}, {y}).options.Set(fb::ExpandOptionsT());
}

}  // namespace edgefold::compiler
