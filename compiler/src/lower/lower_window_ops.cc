// Conv, MaxPool/AveragePool, GlobalAveragePool/GlobalMaxPool.
#include "lower/lower_context.h"
#include "lower/conv_layout.h"
#include "lower/spatial.h"
#include "kernels/conv/conv_expand.h"
#include "kernels/conv/conv_winograd.h"
#include "kernels/conv/conv_scratch.h"

namespace edgefold::compiler {
namespace {

std::vector<int32_t> Pair(const ir::Node& n, int64_t a, int64_t b) {
  return {ToInt32(n, a, "window"), ToInt32(n, b, "window")};
}

// Winograd pays when the GEMMs are wide enough to hide the input and output transforms: from 16
// channels (the default min_channels) F(2×2, 3×3) beats the phase-plane GEMM on x86 (ResNet-8's
// 16- and 32-channel layers at 32² and 16²; bench/README.md, "Winograd from 16 channels") and in
// cycles on the Cortex-M4, not on the Cortex-M55 (docs/cycles.md). With fewer than 64 output
// pixels (7², 16 tiles) the 16/9 larger filters dominate: they come from DRAM in a network.
// Per-layer measurements: bench/README.md, "Winograd threshold".
bool WinogradPays(const kernels::Conv2dShape& s, size_t min_channels) {
  return kernels::ConvIsWinograd(s) && s.in_c >= min_channels && s.out_c >= min_channels &&
         s.out_h * s.out_w >= 64;
}

// F(4×4, 3×3) needs 2.25 multiplies per output against F(2×2, 3×3)'s 4, but its filters are
// 36/16 larger, a plane that is not a multiple of 4 wastes more of its tiles and its transforms
// cost more per channel: it wins on planes of at least 14² with 64 channels or more
// (bench/README.md, "Winograd tile size"), and with fewer channels where its tile rows fill
// whole registers on every table (4, 8 or 16 lanes): rows of 4·2ᵏ (k ≤ 2) or 64·k outputs, which
// the transforms put into whole registers, several tile rows to one when a row is shorter
// (ResNet-8's 16-channel 32² and 32-channel 16² layers; bench/README.md, "MLPerf Tiny").
size_t WinogradTileFor(const kernels::Conv2dShape& s, WinogradMode mode, size_t min_channels) {
  if (mode == WinogradMode::kOff || !WinogradPays(s, min_channels)) return 0;
  if (mode == WinogradMode::kF2x3) return 2;
  if (mode == WinogradMode::kF4x3) return 4;
  if (s.out_h < 14 || s.out_w < 14) return 2;
  const size_t tiles_w = s.out_w / 4;
  const bool whole_registers = s.out_w % 4 == 0 && (16 % tiles_w == 0 || tiles_w % 16 == 0);
  return (s.in_c >= 64 && s.out_c >= 64) || whole_registers ? 4 : 2;
}

// The window fields of a Conv's options and the kernels' shape of it (x [N, C, H, W] or [N, C, L]).
fb::ConvOptionsT ConvWindowOptions(const ir::Node& n, const Window2d& win, int64_t group) {
  fb::ConvOptionsT opt;
  opt.kernel = Pair(n, win.kh, win.kw);
  opt.strides = Pair(n, win.sh, win.sw);
  opt.dilations = Pair(n, win.dh, win.dw);
  opt.pads = {ToInt32(n, win.top, "pad"), ToInt32(n, win.left, "pad"),
              ToInt32(n, win.bottom, "pad"), ToInt32(n, win.right, "pad")};
  opt.group = ToInt32(n, group, "group");
  opt.activation = ToFbActivation(n.act);
  return opt;
}

// A depthwise Conv with a fused pointwise expansion (passes/fuse_expansion.cc): inputs [x, W, B,
// "", We, be], W, B and Y being the depthwise conv's over t = expand_act(We·x + be); scratch for
// the rows of t of one band within n.expand_band_bytes.
void LowerExpandDepthwise(LowerContext& ctx, const ir::Node& n) {
  const ConvOperands o = ReadConvOperands(ctx, n);
  const ir::Tensor& we = ctx.Ir(n, 4);
  if (!ctx.graph().IsConst(n.inputs[4]) || (!n.In(5).empty() && !ctx.graph().IsConst(n.inputs[5])))
    throw CompileError(n.Msg("a fused expansion's weights and bias must be constants"));
  if (o.xs.size() != 4 || we.shape.size() != 4 || we.shape[1] != o.xs[1] || we.shape[2] != 1 ||
      we.shape[3] != 1 || o.ws.size() != 4 || o.ws[0] != we.shape[0] || o.ws[1] != 1 ||
      o.group != we.shape[0] || o.ys[1] != we.shape[0])
    throw CompileError(n.Msg(
        "a fused expansion needs X [N, Cin, H, W], We [C, Cin, 1, 1] and a depthwise conv over C"));
  const std::vector<int64_t> ts = {o.xs[0], we.shape[0], o.xs[2], o.xs[3]};
  const Window2d win = ResolveWindow(n, ts, {o.ws[2], o.ws[3]}, o.ys, false);
  const kernels::Conv2dShape s = ConvShape(ts, o.ys, win, o.group);
  if (!kernels::ExpandFusable(s))
    throw CompileError(n.Msg("a fused expansion needs padding smaller than the window"));
  fb::ConvOptionsT opt = ConvWindowOptions(n, win, o.group);
  opt.expand_activation = ToFbActivation(n.expand_act);
  fb::OperatorT& op = ctx.AddOp(
      fb::OpType::Conv, n,
      {o.x, ctx.Tensor(n, n.In(1)), o.b, -1, ctx.Tensor(n, n.In(4)), ctx.Tensor(n, n.In(5))},
      {o.y});
  op.options.Set(std::move(opt));
  op.scratch_bytes =
      kernels::MakeExpandBands(s, kernels::ExpandBandRowsWithin(s, n.expand_band_bytes))
          .scratch_bytes;
}

}  // namespace

// The Conv's W as the kernels read it, its packing set in opt: Wᵀ as [Cin, kh, kw, Cout]
// (transposed), U = G·g·Gᵀ as [α, α, Cout, Cin] with α = tile + 2 (Winograd), or W itself.
int ConvWeights(LowerContext& ctx, const ir::Node& n, const kernels::Conv2dShape& s,
                const std::vector<int64_t>& ws, size_t tile, bool transposed,
                fb::ConvOptionsT* opt) {
  const ir::Tensor& w_ir = ctx.Ir(n, 1);
  if (transposed) {
    // W is [Cout, Cin/group, kh, kw]: row o, column q (a depthwise conv's Wᵀ is [1, kh, kw, C])
    const size_t taps = static_cast<size_t>(ws[1]) * s.kh * s.kw;
    std::vector<float> wt(taps * s.out_c);
    for (size_t o = 0; o < s.out_c; ++o)
      for (size_t q = 0; q < taps; ++q)
        wt[q * s.out_c + o] = static_cast<float>(w_ir.data[o * taps + q]);
    opt->packing = fb::WeightPacking::Transposed;
    return ctx.NewTensor(n.In(1) + "_transposed", {ws[1], ws[2], ws[3], ws[0]}, true,
                         std::move(wt));
  }
  if (tile == 0) return ctx.Tensor(n, n.In(1));
  const int64_t alpha = static_cast<int64_t>(tile) + 2;
  const std::vector<float> g(w_ir.data.begin(), w_ir.data.end());
  std::vector<float> u(static_cast<size_t>(alpha * alpha) * s.out_c * s.in_c);
  kernels::WinogradTransformFilters(g.data(), s.out_c, s.in_c, tile, u.data());
  opt->packing = tile == 4 ? fb::WeightPacking::Winograd4x3 : fb::WeightPacking::Winograd2x3;
  return ctx.NewTensor(n.In(1) + (tile == 4 ? "_winograd43" : "_winograd23"),
                       {alpha, alpha, ws[0], ws[1]}, true, std::move(u));
}

void LowerConv(LowerContext& ctx, const ir::Node& n) {
  if (!n.In(4).empty()) return LowerExpandDepthwise(ctx, n);
  const ConvOperands o = ReadConvOperands(ctx, n);
  const int x = o.x, b = o.b, y = o.y;
  const std::vector<int64_t>&xs = o.xs, &ws = o.ws, &ys = o.ys;
  const int64_t group = o.group;
  if (xs.size() < 3 || ws.size() != xs.size())
    throw CompileError(n.Msg("W rank must equal X rank (3 or 4)"));
  if (group < 1 || xs[1] % group || ws[0] % group || ws[1] * group != xs[1])
    throw CompileError(n.Msg("attribute 'group'=" + std::to_string(group) + " does not fit X " +
                             ir::ShapeString(xs) + " and W " + ir::ShapeString(ws)));
  if (b >= 0 && ir::NumElements(ctx.Shape(b)) != ws[0])
    throw CompileError(n.Msg("bias B must have Cout values"));
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (n.Has("kernel_shape") && n.Ints("kernel_shape", {}) != kernel)
    throw CompileError(n.Msg("attribute 'kernel_shape' does not match W " + ir::ShapeString(ws)));
  const Window2d win = ResolveWindow(n, xs, kernel, ys, false);
  fb::ConvOptionsT opt = ConvWindowOptions(n, win, group);
  const kernels::Conv2dShape s = ConvShape(xs, ys, win, group);
  const size_t tile =
      xs.size() == 4 ? WinogradTileFor(s, ctx.winograd(), ctx.winograd_min_channels()) : 0;
  // Not under a fused channel scale (input 3): its W' = W·diag(s) is computed from plain W.
  // NHWC tensors only between transposed-weight convs (conv_layout.h).
  const ConvLayout layout = tile == 0 && xs.size() == 4 && ctx.transposed_weights()
                                ? ConvLayoutOf(ctx.graph(), n)
                                : ConvLayout{};
  const bool transposed = tile == 0 && xs.size() == 4 && ctx.transposed_weights() &&
                          n.In(3).empty() && (TransposedPays(s) || layout.x_hwc || layout.y_hwc);
  const int weights = ConvWeights(ctx, n, s, ws, tile, transposed, &opt);
  if (layout.x_hwc || layout.y_hwc)
    opt.packing = layout.x_hwc && layout.y_hwc ? fb::WeightPacking::TransposedNhwc
                  : layout.x_hwc               ? fb::WeightPacking::TransposedNhwcIn
                                               : fb::WeightPacking::TransposedNhwcOut;
  const bool winograd = tile != 0;
  // Input 3, the channel scale of passes/fuse_channel_scale.cc: W'[o, c] = W[o, c]·s[c] per run.
  const int scale = n.In(3).empty() ? -1 : ctx.Tensor(n, n.In(3));
  if (scale >= 0 && (winograd || group != 1 || !kernels::ConvIsPointwise(s) ||
                     ir::NumElements(ctx.Shape(scale)) != ws[1]))
    throw CompileError(
        n.Msg("a channel scale needs a pointwise group-1 conv and one value per input channel"));
  std::vector<int> inputs = {x, weights, b};
  if (scale >= 0) inputs.push_back(scale);
  fb::OperatorT& op = ctx.AddOp(fb::OpType::Conv, n, std::move(inputs), {y});
  op.options.Set(std::move(opt));
  op.scratch_bytes = winograd     ? kernels::MakeWinogradLayout(s, tile).scratch_bytes
                     : transposed ? (group == 1 ? kernels::ConvKmScratchBytes(s) : 0)
                     : scale >= 0 ? kernels::ConvChannelScaleScratchBytes(s)
                                  : kernels::ConvScratchBytes(s);
}

void LowerPool(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (n.outputs.size() > 1 && !n.outputs[1].empty() && ctx.graph().ConsumerCount(n.outputs[1]) > 0)
    throw CompileError(n.Msg("the Indices output is unsupported"));
  if (n.Int("storage_order", 0) != 0)
    throw CompileError(n.Msg("attribute 'storage_order'=1 is unsupported"));
  if (!n.Has("kernel_shape")) throw CompileError(n.Msg("attribute 'kernel_shape' is required"));
  const bool ceil_mode = n.Int("ceil_mode", 0) != 0;
  const Window2d win =
      ResolveWindow(n, ctx.Shape(x), n.Ints("kernel_shape", {}), ctx.Shape(y), ceil_mode);
  fb::PoolOptionsT opt;
  opt.kind = n.op == "MaxPool" ? fb::PoolKind::Max : fb::PoolKind::Average;
  opt.kernel = Pair(n, win.kh, win.kw);
  opt.strides = Pair(n, win.sh, win.sw);
  opt.dilations = Pair(n, win.dh, win.dw);
  opt.pads = {ToInt32(n, win.top, "pad"), ToInt32(n, win.left, "pad"),
              ToInt32(n, win.bottom, "pad"), ToInt32(n, win.right, "pad")};
  opt.count_include_pad = n.Int("count_include_pad", 0) != 0;
  opt.ceil_mode = ceil_mode;
  ctx.AddOp(fb::OpType::Pool, n, {x}, {y}).options.Set(std::move(opt));
}

void LowerGlobalPool(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (ctx.Shape(x).size() < 3) throw CompileError(n.Msg("input must have rank >= 3"));
  fb::GlobalPoolOptionsT opt;
  opt.kind = n.op == "GlobalMaxPool" ? fb::PoolKind::Max : fb::PoolKind::Average;
  ctx.AddOp(fb::OpType::GlobalPool, n, {x}, {y}).options.Set(std::move(opt));
}

}  // namespace edgefold::compiler
