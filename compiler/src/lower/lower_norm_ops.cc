// Normalization: LayerNormalization (opset 17, or the pattern older exports spell out,
// fused by passes/fuse_layer_norm.cc) and InstanceNormalization.
#include <algorithm>

#include "lower/lower_context.h"
#include "passes/const_eval.h"

namespace edgefold::compiler {

void LowerLayerNorm(LowerContext& ctx, const ir::Node& n) {
  if (n.Int("stash_type", 1) != 1)
    throw CompileError(n.Msg("stash_type other than float is not supported"));
  const int x = ctx.Tensor(n, n.In(0));
  // Mean and InvStdDev (one value per normalized row) only when something reads them.
  std::vector<int> outputs = {ctx.Tensor(n, n.outputs.at(0))};
  size_t used = 1;
  for (size_t i = 1; i < n.outputs.size() && i < 3; ++i)
    if (!n.outputs[i].empty() &&
        (ctx.graph().ConsumerCount(n.outputs[i]) > 0 || ctx.graph().IsGraphOutput(n.outputs[i])))
      used = i + 1;
  for (size_t i = 1; i < used; ++i) {
    if (n.outputs[i].empty()) throw CompileError(n.Msg("InvStdDev is used but Mean is not named"));
    outputs.push_back(ctx.Tensor(n, n.outputs[i]));
  }
  const std::vector<int64_t> xs = ctx.Shape(x);
  const int64_t axis = passes::NormalizeAxis(n, n.Int("axis", -1), static_cast<int64_t>(xs.size()));
  int64_t cols = 1;
  for (size_t d = static_cast<size_t>(axis); d < xs.size(); ++d) cols *= xs[d];
  std::vector<int> inputs = {x};
  for (size_t i = 1; i <= 2; ++i) {
    if (n.In(i).empty()) continue;
    if (!ctx.graph().IsConst(n.inputs[i]))
      throw CompileError(n.Msg(i == 1 ? "Scale must be a constant" : "B must be a constant"));
    const ir::Tensor& t = ctx.Ir(n, i);
    if (ir::NumElements(t.shape) != cols)
      throw CompileError(n.Msg(std::string(i == 1 ? "Scale" : "B") + " " +
                               ir::ShapeString(t.shape) + " does not hold the normalized dims' " +
                               std::to_string(cols) + " values"));
    std::vector<float> v(t.data.begin(), t.data.end());
    inputs.push_back(ctx.NewTensor(n.name + (i == 1 ? "_scale" : "_bias"), {cols}, true, v));
  }
  if (inputs.size() < 2) throw CompileError(n.Msg("Scale is required"));
  fb::LayerNormOptionsT opt;
  opt.axis = static_cast<int32_t>(axis);
  opt.epsilon = static_cast<float>(n.Float("epsilon", 1e-5));
  ctx.AddOp(fb::OpType::LayerNorm, n, inputs, outputs).options.Set(std::move(opt));
}

// InstanceNormalization of x [N, C, D1, …]: per (n, c) a LayerNorm over D1·… (scale 1), then
// y = x̂·scale[c] + B[c] as a ChannelAffine, left out when scale is all 1 and B all 0 (PyTorch's
// GroupNorm export normalizes that way and applies γ, β after a Reshape).
void LowerInstanceNorm(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const std::vector<int64_t> xs = ctx.Shape(x);
  if (xs.size() < 3)
    throw CompileError(n.Msg("input " + ir::ShapeString(xs) + " needs rank >= 3 (N, C, D1, ...)"));
  const int64_t channels = xs[1], spatial = ir::NumElements(xs) / (xs[0] * xs[1]);
  bool identity = true;
  for (size_t i = 1; i <= 2; ++i) {
    const char* what = i == 1 ? "scale" : "B";
    if (n.In(i).empty() || !ctx.graph().IsConst(n.inputs[i]))
      throw CompileError(n.Msg(std::string(what) + " must be a constant"));
    const ir::Tensor& t = ctx.Ir(n, i);
    if (t.shape.size() != 1 || t.shape[0] != channels)
      throw CompileError(n.Msg(std::string(what) + " " + ir::ShapeString(t.shape) +
                               " must hold one value per channel (" + std::to_string(channels) +
                               ")"));
    const double neutral = i == 1 ? 1.0 : 0.0;
    identity = identity &&
               std::all_of(t.data.begin(), t.data.end(), [&](double v) { return v == neutral; });
  }
  const float eps = static_cast<float>(n.Float("epsilon", 1e-5));
  if (!(eps >= 0.0f)) throw CompileError(n.Msg("epsilon must be >= 0"));
  fb::LayerNormOptionsT opt;
  opt.axis = 2;
  opt.epsilon = eps;
  const int ones = ctx.NewTensor(n.name + "_ones", {spatial}, true,
                                 std::vector<float>(static_cast<size_t>(spatial), 1.0f));
  const int normalized = identity ? y : ctx.NewTensor(n.name + "_normalized", xs, false, {});
  ctx.AddOp(fb::OpType::LayerNorm, n, {x, ones}, {normalized}).options.Set(std::move(opt));
  if (identity) return;
  fb::ChannelAffineOptionsT affine;
  affine.activation = ToFbActivation(kernels::Activation());
  ctx.AddOp(fb::OpType::ChannelAffine, n,
            {normalized, ctx.Tensor(n, n.In(1)), ctx.Tensor(n, n.In(2))}, {y})
      .options.Set(std::move(affine));
}

}  // namespace edgefold::compiler
