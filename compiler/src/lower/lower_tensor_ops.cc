// Data movement: Pad, Softmax, Concat, Reshape (Flatten/Squeeze/Unsqueeze), Transpose.
#include "lower/lower_context.h"
#include "passes/const_eval.h"

namespace edgefold::compiler {

void LowerPad(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (n.Str("mode", "constant") != "constant")
    throw CompileError(n.Msg("attribute 'mode'='" + n.Str("mode", "") + "' is unsupported"));
  if (!n.In(3).empty()) throw CompileError(n.Msg("input 'axes' is unsupported"));
  std::vector<int64_t> pads = n.Ints("pads", {});
  if (!n.In(1).empty()) {
    if (!ctx.graph().IsConst(n.inputs[1]))
      throw CompileError(n.Msg("input 'pads' must be a constant"));
    const auto& d = ctx.Ir(n, 1).data;
    pads.assign(d.begin(), d.end());
  }
  if (pads.size() != 2 * ctx.Shape(x).size())
    throw CompileError(n.Msg("'pads' must have 2·rank values"));
  for (int64_t p : pads)
    if (p < 0) throw CompileError(n.Msg("negative 'pads' are unsupported"));
  fb::PadOptionsT opt;
  opt.pads = ToInt32s(n, pads, "pads");
  if (!n.In(2).empty()) {
    if (!ctx.graph().IsConst(n.inputs[2]))
      throw CompileError(n.Msg("input 'constant_value' must be a constant"));
    opt.value = static_cast<float>(ctx.Ir(n, 2).data.at(0));
  } else {
    opt.value = static_cast<float>(n.Float("value", 0.0));
  }
  ctx.AddOp(fb::OpType::Pad, n, {x}, {y}).options.Set(std::move(opt));
}

// Opset ≥ 13: softmax along one axis. Older semantics (axis ≠ last) flatten from `axis` into
// [outer, inner] first: Reshape → Softmax(axis 1) → Reshape.
void LowerSoftmax(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const std::vector<int64_t> xs = ctx.Shape(x);
  const int64_t rank = static_cast<int64_t>(xs.size());
  const bool legacy = ctx.graph().opset < 13;
  const int64_t axis = passes::NormalizeAxis(n, n.Int("axis", legacy ? 1 : -1), rank);
  if (!legacy || axis == rank - 1) {
    fb::SoftmaxOptionsT opt;
    opt.axis = static_cast<int32_t>(axis);
    ctx.AddOp(fb::OpType::Softmax, n, {x}, {y}).options.Set(std::move(opt));
    return;
  }
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= xs[i];
  const std::vector<int64_t> flat = {outer, ir::NumElements(xs) / outer};
  const int a = ctx.NewTensor(n.name + "_flat", flat, false, {});
  const int b = ctx.NewTensor(n.name + "_softmax", flat, false, {});
  ctx.AddOp(fb::OpType::Reshape, n, {x}, {a}).options.Set(fb::ReshapeOptionsT());
  fb::SoftmaxOptionsT opt;
  opt.axis = 1;
  ctx.AddOp(fb::OpType::Softmax, n, {a}, {b}).options.Set(std::move(opt));
  ctx.AddOp(fb::OpType::Reshape, n, {b}, {y}).options.Set(fb::ReshapeOptionsT());
}

void LowerConcat(LowerContext& ctx, const ir::Node& n) {
  std::vector<int> in;
  for (const std::string& name : n.inputs) in.push_back(ctx.Tensor(n, name));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (in.empty()) throw CompileError(n.Msg("needs at least one input"));
  fb::ConcatOptionsT opt;
  opt.axis = static_cast<int32_t>(
      passes::NormalizeAxis(n, n.Int("axis", 0), static_cast<int64_t>(ctx.Shape(y).size())));
  ctx.AddOp(fb::OpType::Concat, n, in, {y}).options.Set(std::move(opt));
}

void LowerReshape(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (ir::NumElements(ctx.Shape(x)) != ir::NumElements(ctx.Shape(y)))
    throw CompileError(n.Msg("output " + ir::ShapeString(ctx.Shape(y)) +
                             " has a different element count than input " +
                             ir::ShapeString(ctx.Shape(x))));
  ctx.AddOp(fb::OpType::Reshape, n, {x}, {y}).options.Set(fb::ReshapeOptionsT());
}

void LowerTranspose(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const int64_t rank = static_cast<int64_t>(ctx.Shape(x).size());
  std::vector<int64_t> perm = n.Ints("perm", {});
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != rank)
    throw CompileError(n.Msg("attribute 'perm' must have rank values"));
  std::vector<bool> seen(rank, false);
  for (int64_t& p : perm) {
    p = passes::NormalizeAxis(n, p, rank);
    if (seen[p]) throw CompileError(n.Msg("attribute 'perm' repeats axis " + std::to_string(p)));
    seen[p] = true;
  }
  fb::TransposeOptionsT opt;
  opt.perm = ToInt32s(n, perm, "perm");
  ctx.AddOp(fb::OpType::Transpose, n, {x}, {y}).options.Set(std::move(opt));
}

}  // namespace edgefold::compiler
