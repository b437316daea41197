// Conv (1-D and 2-D, any stride, padding, dilation and group count).
//   y[n, oc, oy, ox] = act(b[oc] + Σ_{ic∈group(oc), ky, kx} w[oc, ic, ky, kx] · x[n, ic, iy, ix])
//   iy = oy·sh − pad_top + ky·dh, ix = ox·sw − pad_left + kx·dw (zero outside the image)
// Depthwise convs run a direct kernel; pointwise ones one GEMM on the input; others a GEMM per
// group that reads each tap in place from phase planes (kernels/conv/conv_phase.h), or im2col + GEMM
// when the plan gives im2col's scratch for a small plane (ConvPrefersIm2col) or not the phase
// path's; 3×3 stride-1 convs whose weights the compiler
// stored in the Winograd domain run kernels/conv/conv_winograd.h.
// Inputs 4 and 5 (depthwise convs only): a pointwise expansion the compiler fused in, t =
// expand_act(We·x + be), computed band by band into scratch (kernels/conv/conv_expand.h).
// Optional input 3, a channel scale s[in_c] (a squeeze-and-excitation Mul the compiler fused in,
// pointwise group-1 convs only): y = W·(x ⊙ s) + b = W'·x + b, W'[o, c] = W[o, c]·s[c] written to
// scratch (at kernels::ConvScaledWeightsOffsetBytes) on every run, or x ⊙ s itself when the image
// is the smaller operand (kernels::ConvChannelScaleScalesInput).
#include "kernels/conv/conv_expand.h"
#include "kernels/cpu_caches.h"
#include "kernels/conv/conv_phase.h"
#include "kernels/conv/conv_winograd.h"
#include "kernels/conv/conv_scratch.h"
#include "ops/family_table.h"
#include "ops/op_kernel.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"

namespace edgefold::internal {
namespace {

enum class ConvPath : uint8_t {
  kDirect,
  kPhasePlanes,
  kIm2col,
  kWinograd23,
  kWinograd43,
  kExpandDepthwise
};

size_t WinogradTile(ConvPath path) { return path == ConvPath::kWinograd43 ? 4 : 2; }

// Threads split a conv's GEMM over output channels (rows) unless there are too few of them for
// whole 8-row tiles per thread to balance (24 channels over 2 threads: 16 + 8) while the pixels
// are many: then over pixels, and each thread reads only its columns of the input.
bool SplitGemmColumns(const Parallel* parallel, size_t rows, size_t columns) {
  const size_t threads = parallel != nullptr ? parallel->threads : 1;
  return threads > 1 && rows < 32 * threads && columns >= 256 * threads;
}

struct ConvPrepared {
  kernels::Conv2dShape shape;  // kExpandDepthwise: the depthwise conv over t
  union {
    kernels::ConvPhaseLayout phase;  // kPhasePlanes
    kernels::ExpandBands bands;      // kExpandDepthwise
  };
  uint32_t batch;
  ConvPath path;                         // kDirect: depthwise kernel or pointwise GEMM, no scratch
  bool channel_scale;                    // input 3 present: scale W's columns into scratch first
  const kernels::ConvKernelTable* conv;  // depthwise and Winograd kernels of the level
};

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
  p.conv = FamilyTable<kernels::ConvKernelTable>(ctx);
  return p;
}

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

// W stored as U = G·g·Gᵀ [α, α, Cout, Cin] (WeightPacking Winograd2x3: α = 4, Winograd4x3: α = 6):
// the shape the transform exists for and the scratch of kernels/conv/conv_winograd.h. Sets
// `shape` (MakeConv2dShape reads Cout from W's first dim, which here is α).
Status PrepareWinograd(OpContext& ctx, kernels::Conv2dShape s, ConvPath path) {
  const TensorInfo& w = ctx.input(1);
  const size_t tile = WinogradTile(path);
  const long alpha = static_cast<long>(tile + 2);
  s.out_c = static_cast<size_t>(ctx.output(0).shape[1]);
  if (!kernels::ConvIsWinograd(s) || w.rank != 4 || w.shape[0] != alpha || w.shape[1] != alpha ||
      static_cast<size_t>(w.shape[2]) != s.out_c || static_cast<size_t>(w.shape[3]) != s.in_c)
    return ctx.Fail(
        Status::kShapeMismatch,
        "Winograd F(%zu,3) weights need a 3x3 stride-1 ungrouped conv and W [%ld, %ld, Cout, Cin]",
        tile, alpha, alpha);
  if (ctx.has_input(2) && ctx.input(2).elems != s.out_c)
    return ctx.Fail(Status::kShapeMismatch, "bias has %zu values for %zu output channels",
                    ctx.input(2).elems, s.out_c);
  const size_t scratch = kernels::MakeWinogradLayout(s, tile).scratch_bytes;
  if (ctx.op.scratch_bytes < scratch)
    return ctx.Fail(Status::kInvalidModel, "needs %zu scratch bytes, the plan gives %zu", scratch,
                    ctx.op.scratch_bytes);
  SetPrepared(ctx, s, path, false);
  return Status::kOk;
}

// Inputs 4 (We [C, Cin, 1, 1]) and 5 (be [C]): a depthwise conv over t = act_e(We·x + be), with
// at least one band's rows of t in the planned scratch.
Status PrepareExpand(OpContext& ctx, kernels::Conv2dShape s) {
  const ConvOptions& o = ctx.op.options.conv;
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& we = ctx.input(4);
  const TensorInfo& y = ctx.output(0);
  if (x.rank != 4 || !we.is_constant || we.rank != 4 || we.shape[1] != x.shape[1] ||
      we.shape[2] != 1 || we.shape[3] != 1)
    return ctx.Fail(Status::kShapeMismatch,
                    "a fused expansion needs a 2-D X and constant We [C, Cin, 1, 1] "
                    "with Cin = X's channels");
  if (o.packing != WeightPacking::kPlain || ctx.has_input(3))
    return ctx.Fail(Status::kInvalidModel,
                    "a fused expansion takes plain weights and no channel scale");
  s.in_c = static_cast<size_t>(we.shape[0]);
  size_t wk_h = 1, wk_w = 1;
  SpatialDims(w, &wk_h, &wk_w);
  if (!kernels::ConvIsDepthwise(s) || static_cast<size_t>(w.shape[1]) != 1 || wk_h != s.kh ||
      wk_w != s.kw || y.shape[0] != x.shape[0] || static_cast<size_t>(y.shape[1]) != s.in_c)
    return ctx.Fail(Status::kShapeMismatch,
                    "a fused expansion needs a depthwise conv over its %zu channels", s.in_c);
  if (!OutputFollowsWindow(o, s))
    return ctx.Fail(Status::kShapeMismatch, "Y shape does not follow from X, W and the options");
  if (!kernels::ExpandFusable(s))
    return ctx.Fail(Status::kInvalidModel,
                    "a fused expansion needs padding smaller than the window");
  if ((ctx.has_input(2) && ctx.input(2).elems != s.in_c) ||
      (ctx.has_input(5) && ctx.input(5).elems != s.in_c))
    return ctx.Fail(Status::kShapeMismatch, "the biases need %zu values, one per expanded channel",
                    s.in_c);
  const size_t rows = kernels::ExpandBandRowsFor(s, ctx.op.scratch_bytes);
  if (rows == 0)
    return ctx.Fail(Status::kInvalidModel,
                    "needs %zu scratch bytes for one band of the expansion, the plan gives %zu",
                    kernels::MakeExpandBands(s, 1).scratch_bytes, ctx.op.scratch_bytes);
  // The plan bounds the band; so does this core's L2 (read once at Create): a band of t larger
  // than L2 goes out to L3 and back, the traffic the fusion is for (bench/README.md: on a 512 KiB
  // L2, 1 MiB bands were slower than 512 KiB ones). The bits do not depend on the band.
  const size_t cached = kernels::ExpandBandRowsWithin(s, kernels::HostCaches().l2_bytes);
  SetPrepared(ctx, s, ConvPath::kExpandDepthwise, false).bands =
      kernels::MakeExpandBands(s, std::min(rows, cached));
  return Status::kOk;
}

Status Prepare(OpContext& ctx) {
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
  if (ctx.has_input(4)) return PrepareExpand(ctx, s);
  if (ctx.has_input(5))
    return ctx.Fail(Status::kInvalidModel,
                    "an expansion bias (input 5) needs its weights (input 4)");
  const bool channel_scale = ctx.has_input(3);
  if (channel_scale && o.packing != WeightPacking::kPlain) return PrepareChannelScale(ctx, s);
  if (o.packing == WeightPacking::kWinograd2x3)
    return PrepareWinograd(ctx, s, ConvPath::kWinograd23);
  if (o.packing == WeightPacking::kWinograd4x3)
    return PrepareWinograd(ctx, s, ConvPath::kWinograd43);
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
  SetPrepared(ctx, s, path, channel_scale).phase = phase;
  return Status::kOk;
}

// What every path reads at run time.
struct ConvIo {
  const float* x;
  const float* w;     // W, or W' = W·diag(s) in scratch (a channel scale on the weights)
  const float* bias;  // nullptr without input 2
  float* y;
  const float* scale;   // a channel scale on the image: s, and x' = x ⊙ s per image into
  float* scaled_input;  // scaled_input; else both nullptr
};

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

// kExpandDepthwise: channels of t split over threads, bands inside.
void RunExpandDepthwise(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const ConvOptions& o = ctx.op.options.conv;
  kernels::PointwiseExpansion e;
  e.w = ctx.input(4).data;
  e.bias = ctx.has_input(5) ? ctx.input(5).data : nullptr;
  e.act = o.expand_act;
  e.in_c = static_cast<size_t>(ctx.input(0).shape[1]);
  const size_t out_plane = s.out_h * s.out_w, x_image = e.in_c * s.in_h * s.in_w;
  const size_t work = e.in_c * s.in_h * s.in_w + s.kh * s.kw * out_plane;
  for (size_t n = 0; n < p.batch; ++n)
    ForEachRowRange(ctx.parallel, s.in_c, work, 8, [&](size_t c0, size_t c1) {
      kernels::Conv2dExpandDepthwise(ctx.k, *p.conv, s, p.bands, e, io.x + n * x_image, io.w,
                                     io.bias, o.act, io.y + n * s.out_c * out_plane, ctx.op.scratch,
                                     c0, c1);
    });
}

// Winograd, one image, each thread its own tile rows: the planes' rows, then the rest. Both
// steps split with the same arguments, so a task fills the rows it then transforms.
void WinogradByTileRows(OpContext& ctx, const ConvPrepared& p, const kernels::WinogradLayout& l,
                        const kernels::WinogradRowSplit& split, const ConvIo& io, const float* xn,
                        float* yn) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t row_work = l.alpha * l.alpha * s.in_c * s.out_c * l.geometry.tiles_w;
  ForEachRowTask(ctx.parallel, l.tiles_h, row_work, 1, [&](size_t, size_t r0, size_t r1) {
    kernels::WinogradFillTileRows(s, l, xn, ctx.op.scratch, r0, r1);
  });
  ForEachRowTask(ctx.parallel, l.tiles_h, row_work, 1, [&](size_t task, size_t r0, size_t r1) {
    kernels::WinogradTileRows(ctx.k, *p.conv, s, l, split, task, io.w, io.bias,
                              ctx.op.options.conv.act, yn, ctx.op.scratch, r0, r1);
  });
}

// Winograd, one image in bands of a few short tile rows: each step split over threads its own
// way, channels, then ξ, then output channels. Per channel and tile a transform costs about as
// much as 8·α² multiply-adds (AVX2, F(4×4): ~60 instructions per tile and channel in, ~90 out,
// where one FMA instruction is 8 multiply-adds).
void WinogradByBands(OpContext& ctx, const ConvPrepared& p, const kernels::WinogradLayout& l,
                     const ConvIo& io, const float* xn, float* yn) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t xis = l.alpha * l.alpha, band_tiles = l.band_rows * l.geometry.tiles_w;
  ForEachRowRange(
      ctx.parallel, s.in_c, s.in_h * s.in_w * kElementWork, 1,
      [&](size_t c0, size_t c1) { kernels::WinogradFill(s, l, xn, ctx.op.scratch, c0, c1); });
  for (size_t band = 0; band < kernels::WinogradBands(l); ++band) {
    ForEachRowRange(ctx.parallel, s.in_c, 8 * xis * band_tiles, 1, [&](size_t c0, size_t c1) {
      kernels::WinogradBandInput(ctx.k, *p.conv, s, l, band, ctx.op.scratch, c0, c1);
    });
    ForEachRowRange(ctx.parallel, xis, s.out_c * s.in_c * band_tiles, 1,
                    [&](size_t xi0, size_t xi1) {
                      kernels::WinogradBandGemms(ctx.k, s, l, band, io.w, ctx.op.scratch, xi0, xi1);
                    });
    ForEachRowRange(ctx.parallel, s.out_c, 8 * xis * band_tiles, 1, [&](size_t o0, size_t o1) {
      kernels::WinogradBandOutput(*p.conv, l, band, io.bias, ctx.op.options.conv.act, yn,
                                  ctx.op.scratch, o0, o1);
    });
  }
}

// kWinograd23 / kWinograd43. The layout is recomputed per run (a few dozen integer ops): with
// the shape it would not fit kPreparedBytes.
void RunWinograd(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const kernels::WinogradLayout l = kernels::MakeWinogradLayout(s, WinogradTile(p.path));
  const size_t threads = ctx.parallel != nullptr ? ctx.parallel->threads : 1;
  const kernels::WinogradRowSplit split =
      kernels::MakeWinogradRowSplit(l, std::min(threads, l.tiles_h));
  for (size_t n = 0; n < p.batch; ++n) {
    const float* xn = io.x + n * s.in_c * s.in_h * s.in_w;
    float* yn = io.y + n * s.out_c * s.out_h * s.out_w;
    if (split.slices > 0)
      WinogradByTileRows(ctx, p, l, split, io, xn, yn);
    else
      WinogradByBands(ctx, p, l, io, xn, yn);
  }
}

// kDirect, depthwise: channels are independent, each task takes a run of them.
void RunDepthwise(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  for (size_t n = 0; n < p.batch; ++n) {
    const float* xn = io.x + n * s.in_c * plane;
    float* yn = io.y + n * s.out_c * out_plane;
    ForEachRowRange(ctx.parallel, s.out_c, out_plane * s.kh * s.kw, 1, [&](size_t c0, size_t c1) {
      kernels::Conv2dShape part = s;
      part.in_c = part.out_c = part.group = c1 - c0;
      p.conv->conv2d_depthwise(part, xn + c0 * plane, io.w + c0 * s.kh * s.kw,
                               io.bias ? io.bias + c0 : nullptr, ctx.op.options.conv.act,
                               yn + c0 * out_plane);
    });
  }
}

// One group's operands for the GEMM paths.
struct GroupIo {
  const float* x;
  const float* w;
  const float* bias;
  float* y;
};

// kPhasePlanes, one group: the planes split over input channels, then the GEMM over output
// channels in whole register tiles, or over pixels when the channels are few.
void PhasePlanesGroup(OpContext& ctx, const ConvPrepared& p, const GroupIo& g) {
  const kernels::Conv2dShape& s = p.shape;
  const kernels::Activation act = ctx.op.options.conv.act;
  const size_t cin_g = s.in_c / s.group, cout_g = s.out_c / s.group, out_plane = s.out_h * s.out_w;
  const size_t k = cin_g * s.kh * s.kw;
  ForEachRowRange(ctx.parallel, cin_g, s.in_h * s.in_w * kElementWork, 1,
                  [&](size_t c0, size_t c1) {
                    kernels::Conv2dPhaseFill(s, p.phase, g.x, ctx.op.scratch, c0, c1);
                  });
  if (!SplitGemmColumns(ctx.parallel, cout_g, out_plane)) {
    ForEachRowRange(ctx.parallel, cout_g, out_plane * k, 8, [&](size_t o0, size_t o1) {
      kernels::Conv2dPhaseRows(ctx.k, s, p.phase, g.w, g.bias, act, g.y, ctx.op.scratch, o0, o1);
    });
    return;
  }
  const size_t units = kernels::Conv2dPhasePixelUnits(s, p.phase);
  const bool rows = p.phase.row_gemms;
  ForEachRowRange(ctx.parallel, units, cout_g * k * (rows ? s.out_w : 1), rows ? 1 : 64,
                  [&](size_t u0, size_t u1) {
                    kernels::Conv2dPhasePixels(ctx.k, s, p.phase, g.w, g.bias, act, g.y,
                                               ctx.op.scratch, u0, u1);
                  });
  ForEachRowRange(ctx.parallel, cout_g, out_plane * kElementWork, 1, [&](size_t o0, size_t o1) {
    kernels::Conv2dPhaseCompact(s, p.phase, g.y, ctx.op.scratch, o0, o1);
  });
}

// kIm2col (and pointwise kDirect, whose columns are the input itself), one group: input channel
// c fills column rows [c·kh·kw, (c+1)·kh·kw), then the GEMM's rows (output channels) split over
// threads in whole register tiles, or its columns in runs of 64 when the channels are few
// (MobileNetV2's 144 → 24 projection at 56²: each thread reads its part of B; 64 is a multiple
// of every vector width, so the column tail and the bits do not change).
void Im2colGemmGroup(OpContext& ctx, const ConvPrepared& p, const GroupIo& g) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t cin_g = s.in_c / s.group, cout_g = s.out_c / s.group, out_plane = s.out_h * s.out_w;
  const size_t k = cin_g * s.kh * s.kw, in_plane = s.in_h * s.in_w;
  const float* col = g.x;
  if (!kernels::ConvIsPointwise(s)) {
    ForEachRowRange(ctx.parallel, cin_g, s.kh * s.kw * out_plane, 1, [&](size_t c0, size_t c1) {
      kernels::Conv2dShape part = s;
      part.in_c = c1 - c0, part.group = 1;
      ctx.k.im2col(part, g.x + c0 * in_plane, ctx.op.scratch + c0 * s.kh * s.kw * out_plane);
    });
    col = ctx.op.scratch;
  }
  kernels::GemmParams gp;
  gp.m = cout_g, gp.n = out_plane, gp.k = k;
  gp.lda = k, gp.ldb = out_plane, gp.ldc = out_plane;
  gp.bias = g.bias, gp.bias_per_row = true;
  gp.act = ctx.op.options.conv.act;
  if (SplitGemmColumns(ctx.parallel, cout_g, out_plane)) {
    ForEachRowRange(ctx.parallel, out_plane, cout_g * k, 64, [&](size_t j0, size_t j1) {
      kernels::GemmParams part = gp;
      part.n = j1 - j0;
      ctx.k.gemm(part, g.w, col + j0, g.y + j0);
    });
    return;
  }
  ForEachRowRange(ctx.parallel, cout_g, out_plane * k, 8, [&](size_t o0, size_t o1) {
    kernels::GemmParams part = gp;
    part.m = o1 - o0;
    part.bias = g.bias ? g.bias + o0 : nullptr;
    ctx.k.gemm(part, g.w + o0 * k, col, g.y + o0 * out_plane);
  });
}

// kPhasePlanes, kIm2col and pointwise kDirect: per image (scaled first when the channel scale
// is on the image) and group.
void RunGroupGemms(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  const size_t cin_g = s.in_c / s.group, cout_g = s.out_c / s.group, k = cin_g * s.kh * s.kw;
  for (size_t n = 0; n < p.batch; ++n) {
    const float* xn = io.x + n * s.in_c * plane;
    if (io.scaled_input != nullptr) {  // x'[c, j] = x[c, j]·s[c]
      ForEachRowRange(ctx.parallel, s.in_c, plane * kElementWork, 1, [&](size_t c0, size_t c1) {
        for (size_t c = c0; c < c1; ++c)
          for (size_t j = 0; j < plane; ++j)
            io.scaled_input[c * plane + j] = xn[c * plane + j] * io.scale[c];
      });
      xn = io.scaled_input;
    }
    for (size_t g = 0; g < s.group; ++g) {
      const GroupIo group{xn + g * cin_g * plane, io.w + g * cout_g * k,
                          io.bias ? io.bias + g * cout_g : nullptr,
                          io.y + (n * s.out_c + g * cout_g) * out_plane};
      if (p.path == ConvPath::kPhasePlanes)
        PhasePlanesGroup(ctx, p, group);
      else
        Im2colGemmGroup(ctx, p, group);
    }
  }
}

Status Eval(OpContext& ctx) {
  const ConvPrepared& p = ctx.prepared<ConvPrepared>();
  const ConvIo io = ConvIoOf(ctx, p);
  switch (p.path) {
    case ConvPath::kExpandDepthwise:
      RunExpandDepthwise(ctx, p, io);
      break;
    case ConvPath::kWinograd23:
    case ConvPath::kWinograd43:
      RunWinograd(ctx, p, io);
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

const OpKernel kConv = {Prepare, Eval, 2, 6};

}  // namespace

const OpKernel* RegisterConv() { return &kConv; }

}  // namespace edgefold::internal
