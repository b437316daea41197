// Conv (1-D and 2-D, any stride, padding, dilation and group count).
//   y[n, oc, oy, ox] = act(b[oc] + Σ_{ic∈group(oc), ky, kx} w[oc, ic, ky, kx] · x[n, ic, iy, ix])
//   iy = oy·sh − pad_top + ky·dh, ix = ox·sw − pad_left + kx·dw (zero outside the image)
// Depthwise convs run a direct kernel; pointwise ones one GEMM on the input; others a GEMM per
// group that reads each tap in place from phase planes (kernels/conv/conv_phase.h), or im2col + GEMM
// when the plan gives im2col's scratch for a small plane (ConvPrefersIm2col) or not the phase
// path's; 3×3 stride-1 convs whose weights the compiler
// stored in the Winograd domain run kernels/conv/conv_winograd.h; pointwise convs whose weights it
// stored transposed (Wᵀ [Cin, kh, kw, Cout]: pointwise convs on planes of few pixels, stride-2
// convs of small networks) the core table's conv_km (conv_km.cc); with the NHWC forms of that
// packing X and/or Y lie channels innermost, and a depthwise conv (Wᵀ [1, kh, kw, C]) runs the
// conv table's NHWC kernel (conv_km.cc).
// Inputs 4 and 5 (depthwise convs only): a pointwise expansion the compiler fused in, t =
// expand_act(We·x + be), computed band by band into scratch (kernels/conv/conv_expand.h).
// Optional input 3, a channel scale s[in_c] (a squeeze-and-excitation Mul the compiler fused in,
// pointwise group-1 convs only): y = W·(x ⊙ s) + b = W'·x + b, W'[o, c] = W[o, c]·s[c] written to
// scratch (at kernels::ConvScaledWeightsOffsetBytes) on every run, or x ⊙ s itself when the image
// is the smaller operand (kernels::ConvChannelScaleScalesInput).
#include "kernels/conv/conv_scratch.h"
#include "ops/conv_paths.h"
#include "ops/family_table.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"

namespace edgefold::internal {
namespace conv {

// out_h and out_w as the window options give them for in_h and in_w.
bool OutputFollowsWindow(const ConvOptions& o, const kernels::Conv2dShape& s) {
  return static_cast<long>(s.out_h) == WindowOutput(static_cast<long>(s.in_h), o.pads[0], o.pads[2],
                                                    o.kernel[0], o.strides[0], o.dilations[0],
                                                    false) &&
         static_cast<long>(s.out_w) == WindowOutput(static_cast<long>(s.in_w), o.pads[1], o.pads[3],
                                                    o.kernel[1], o.strides[1], o.dilations[1],
                                                    false);
}

// Sets the prepared data every path shares and returns it for the path's own part (the phase
// layout zeroed until then).
ConvPrepared& SetPrepared(OpContext& ctx, const kernels::Conv2dShape& s, ConvPath path,
                          bool channel_scale) {
  ConvPrepared& p = ctx.prepared<ConvPrepared>();
  p.shape = s;
  p.phase = {};
  p.batch = static_cast<uint32_t>(ctx.input(0).shape[0]);
  p.path = path;
  p.channel_scale = channel_scale;
  p.group_slices = 0;
  p.conv = FamilyTable<kernels::ConvKernelTable>(ctx);
  return p;
}

}  // namespace conv

namespace {

using namespace conv;  // NOLINT: the paths' types and steps

// Input 3 (channel scale): only on the plain pointwise group-1 path, with in_c values and the
// scratch for W'.
Status PrepareChannelScale(OpContext& ctx, const kernels::Conv2dShape& s) {
  const ConvOptions& o = ctx.op.options.conv;
  if (o.packing != WeightPacking::kPlain || s.group != 1 || !kernels::ConvIsPointwise(s))
    return ctx.Fail(
        Status::kInvalidModel,
        "a channel scale (input 3) needs a pointwise (1x1, stride 1, no pad) group-1 conv "
        "with plain weights");
  if (ctx.input(3).elems != s.in_c)
    return ctx.Fail(Status::kShapeMismatch,
                    "channel scale (input 3) has %zu values for %zu input channels",
                    ctx.input(3).elems, s.in_c);
  const size_t scratch = kernels::ConvChannelScaleScratchBytes(s);
  if (ctx.op.scratch_bytes < scratch)
    return ctx.Fail(Status::kInvalidModel,
                    "needs %zu scratch bytes for the channel-scaled operand, the plan gives %zu",
                    scratch, ctx.op.scratch_bytes);
  return Status::kOk;
}

// Direct, phase planes or im2col: the shapes, then the path the planned scratch allows.
Status PreparePlain(OpContext& ctx, const kernels::Conv2dShape& s, bool channel_scale) {
  const ConvOptions& o = ctx.op.options.conv;
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  size_t wk_h = 1, wk_w = 1;
  SpatialDims(w, &wk_h, &wk_w);
  if (s.in_c % s.group != 0 || s.out_c % s.group != 0 ||
      static_cast<size_t>(w.shape[1]) != s.in_c / s.group || wk_h != s.kh || wk_w != s.kw)
    return ctx.Fail(Status::kShapeMismatch, "W shape does not match channels, group and kernel");
  if (static_cast<size_t>(y.shape[0]) != static_cast<size_t>(x.shape[0]) ||
      static_cast<size_t>(y.shape[1]) != s.out_c || !OutputFollowsWindow(o, s))
    return ctx.Fail(Status::kShapeMismatch, "Y shape does not follow from X, W and the options");
  if (ctx.has_input(2) && ctx.input(2).elems != s.out_c)
    return ctx.Fail(Status::kShapeMismatch, "bias has %zu values for %zu output channels",
                    ctx.input(2).elems, s.out_c);
  if (channel_scale) EDGEFOLD_RETURN_IF_ERROR(PrepareChannelScale(ctx, s));
  const bool direct = kernels::ConvIsDepthwise(s) || kernels::ConvIsPointwise(s);
  const kernels::ConvPhaseLayout phase = kernels::MakeConvPhaseLayout(s);
  const size_t scratch = direct ? 0 : kernels::ConvIm2colScratchBytes(s);
  const bool im2col_planned = kernels::ConvPrefersIm2col(s) && scratch <= ctx.op.scratch_bytes;
  const bool phase_planes =
      !direct && !im2col_planned && phase.scratch_bytes <= ctx.op.scratch_bytes;
  if (!phase_planes && ctx.op.scratch_bytes < scratch)
    return ctx.Fail(Status::kInvalidModel, "needs %zu scratch bytes, the plan gives %zu",
                    kernels::ConvScratchBytes(s), ctx.op.scratch_bytes);
  const ConvPath path = direct         ? ConvPath::kDirect
                        : phase_planes ? ConvPath::kPhasePlanes
                                       : ConvPath::kIm2col;
  ConvPrepared& p = SetPrepared(ctx, s, path, channel_scale);
  p.phase = phase;
  p.group_slices = GroupSlices(p, ctx.op.scratch_bytes);
  return Status::kOk;
}

// The schedules a registration links besides the plain paths: weights the compiler stored in
// another layout (Winograd filters, transposed weights) and the fused expansion, each
// nullptr when not registered (OpResolver::AddConvPlain, ...).
struct ConvSchedules {
  Status (*prepare_winograd)(OpContext& ctx, kernels::Conv2dShape s, ConvPath path);
  void (*run_winograd)(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);
  Status (*prepare_transposed)(OpContext& ctx, kernels::Conv2dShape s);
  void (*run_transposed)(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);
  Status (*prepare_expand)(OpContext& ctx, kernels::Conv2dShape s);
  void (*run_expand)(OpContext& ctx, const ConvPrepared& p, const ConvIo& io);
};

Status PrepareWith(OpContext& ctx, const ConvSchedules& k) {
  const ConvOptions& o = ctx.op.options.conv;
  if (ctx.op.num_inputs < 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Fail(Status::kInvalidModel, "needs inputs X and W");
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  if ((x.rank != 3 && x.rank != 4) || w.rank != x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "X, W and Y must all be rank 3 (1-D) or 4 (2-D)");
  if (!w.is_constant) return ctx.Fail(Status::kInvalidModel, "weights must be constant");
  const kernels::Conv2dShape s = MakeConv2dShape(o, x, w, y);
  if (EDGEFOLD_NHWC && (o.x_hwc || o.y_hwc) &&
      (o.packing != WeightPacking::kTransposed || ctx.has_input(3) || ctx.has_input(4)))
    return ctx.Fail(Status::kInvalidModel,
                    "an NHWC input or output needs transposed weights and no fused input");
  if (ctx.has_input(4)) {
    if (k.prepare_expand == nullptr)
      return ctx.Fail(Status::kUnsupportedOp,
                      "a fused expansion needs Conv registered with that schedule "
                      "(OpResolver::AddConv or AddConvExpansion)");
    return k.prepare_expand(ctx, s);
  }
  if (ctx.has_input(5))
    return ctx.Fail(Status::kInvalidModel,
                    "an expansion bias (input 5) needs its weights (input 4)");
  const bool channel_scale = ctx.has_input(3);
  if (channel_scale && o.packing != WeightPacking::kPlain) return PrepareChannelScale(ctx, s);
  if (o.packing == WeightPacking::kPlain) return PreparePlain(ctx, s, channel_scale);
  if (o.packing == WeightPacking::kTransposed) {
    if (k.prepare_transposed == nullptr)
      return ctx.Fail(Status::kUnsupportedOp,
                      "transposed weights need Conv registered with that schedule "
                      "(OpResolver::AddConv or AddConvWinograd)");
    return k.prepare_transposed(ctx, s);
  }
  if (k.prepare_winograd == nullptr)
    return ctx.Fail(Status::kUnsupportedOp,
                    "Winograd weights need Conv registered with that schedule "
                    "(OpResolver::AddConv or AddConvWinograd)");
  return k.prepare_winograd(
      ctx, s,
      o.packing == WeightPacking::kWinograd2x3 ? ConvPath::kWinograd23 : ConvPath::kWinograd43);
}

ConvIo ConvIoOf(OpContext& ctx, const ConvPrepared& p) {
  const kernels::Conv2dShape& s = p.shape;
  ConvIo io{ctx.input(0).data,  ctx.input(1).data, ctx.has_input(2) ? ctx.input(2).data : nullptr,
            ctx.output(0).data, nullptr,           nullptr};
  if (!p.channel_scale) return io;
  float* scaled = ctx.op.scratch + kernels::ConvScaledWeightsOffsetBytes(s) / sizeof(float);
  const float* scale = ctx.input(3).data;
  if (kernels::ConvChannelScaleScalesInput(s)) {
    io.scale = scale, io.scaled_input = scaled;
    return io;
  }
  for (size_t oc = 0; oc < s.out_c; ++oc)  // W'[o, c] = W[o, c]·s[c] (W is [out_c, in_c])
    for (size_t c = 0; c < s.in_c; ++c) scaled[oc * s.in_c + c] = io.w[oc * s.in_c + c] * scale[c];
  io.w = scaled;
  return io;
}

// Prepare chose a path of the same registration, so a schedule's run is there.
Status EvalWith(OpContext& ctx, const ConvSchedules& k) {
  const ConvPrepared& p = ctx.prepared<ConvPrepared>();
  const ConvIo io = ConvIoOf(ctx, p);
  switch (p.path) {
    case ConvPath::kExpandDepthwise:
      k.run_expand(ctx, p, io);
      break;
    case ConvPath::kWinograd23:
    case ConvPath::kWinograd43:
      k.run_winograd(ctx, p, io);
      break;
    case ConvPath::kTransposed:
      k.run_transposed(ctx, p, io);
      break;
    case ConvPath::kDirect:
      if (kernels::ConvIsDepthwise(p.shape))
        RunDepthwise(ctx, p, io);
      else
        RunGroupGemms(ctx, p, io);
      break;
    case ConvPath::kPhasePlanes:
    case ConvPath::kIm2col:
      RunGroupGemms(ctx, p, io);
      break;
  }
  return Status::kOk;
}

// One OpKernel per registration: only the schedules its table names are linked.
constexpr ConvSchedules kPlainOnly = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
constexpr ConvSchedules kWinograd = {PrepareWinograd, RunWinograd, PrepareTransposed,
                                     RunTransposed,   nullptr,     nullptr};
constexpr ConvSchedules kExpansion = {nullptr, nullptr,       nullptr,
                                      nullptr, PrepareExpand, RunExpandDepthwise};
constexpr ConvSchedules kEverySchedule = {PrepareWinograd, RunWinograd,   PrepareTransposed,
                                          RunTransposed,   PrepareExpand, RunExpandDepthwise};

template <const ConvSchedules& kSchedules>
Status Prepare(OpContext& ctx) {
  return PrepareWith(ctx, kSchedules);
}

template <const ConvSchedules& kSchedules>
Status Eval(OpContext& ctx) {
  return EvalWith(ctx, kSchedules);
}

const OpKernel kConv = CoreOp({Prepare<kEverySchedule>, Eval<kEverySchedule>, 2, 6});
const OpKernel kConvPlain = CoreOp({Prepare<kPlainOnly>, Eval<kPlainOnly>, 2, 6});
const OpKernel kConvWinograd = CoreOp({Prepare<kWinograd>, Eval<kWinograd>, 2, 6});
const OpKernel kConvExpansion = CoreOp({Prepare<kExpansion>, Eval<kExpansion>, 2, 6});

}  // namespace

const OpKernel* RegisterConv() { return &kConv; }
const OpKernel* RegisterConvPlain() { return &kConvPlain; }
const OpKernel* RegisterConvWinograd() { return &kConvWinograd; }
const OpKernel* RegisterConvExpansion() { return &kConvExpansion; }

}  // namespace edgefold::internal
