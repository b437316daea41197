// Conv's kTransposed path: a group-1 conv whose W the compiler stored as Wᵀ [Cin, kh, kw, Cout]
// (WeightPacking Transposed: pointwise convs on planes of few pixels, stride-2 convs of small
// networks), run by the core table's conv_km: output channels in the vector lanes. A pointwise
// conv reads its input in place as one row of pixels (NCHW or NHWC); others first copy the
// padded input into scratch (kernels::ConvKmScratchBytes). Y is NCHW or NHWC (ConvOptions). A
// depthwise conv with W stored Wᵀ [1, kh, kw, C] reads and writes NHWC (the conv table's
// conv2d_depthwise_hwc).
#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_scratch.h"
#include "ops/conv_paths.h"
#include "ops/parallel.h"

namespace edgefold::internal::conv {
namespace {

// x's channels [c0, c1) into the padded planes (x_h × x_w each) at `planes`, zero outside x.
void FillPadded(const kernels::Conv2dShape& s, size_t x_h, size_t x_w, const float* x,
                float* planes, size_t c0, size_t c1) {
  for (size_t c = c0; c < c1; ++c) {
    float* plane = planes + c * x_h * x_w;
    std::memset(plane, 0, x_h * x_w * sizeof(float));
    const size_t cols = s.pad_left < x_w ? std::min(s.in_w, x_w - s.pad_left) : 0;
    for (size_t r = s.pad_top; r < x_h && r - s.pad_top < s.in_h; ++r)
      std::memcpy(plane + r * x_w + s.pad_left, x + (c * s.in_h + r - s.pad_top) * s.in_w,
                  cols * sizeof(float));
  }
}

}  // namespace

// A depthwise conv with W stored Wᵀ [1, kh, kw, C]: X and Y channels innermost, the conv
// table's conv2d_depthwise_hwc.
Status PrepareDepthwiseHwc(OpContext& ctx, const kernels::Conv2dShape& s) {
  const ConvOptions& o = ctx.op.options.conv;
  const TensorInfo& w = ctx.input(1);
  if (s.group != s.in_c || s.out_c != s.in_c || ctx.input(0).rank != 4 || w.rank != 4 ||
      w.shape[0] != 1 || static_cast<size_t>(w.shape[1]) != s.kh ||
      static_cast<size_t>(w.shape[2]) != s.kw || static_cast<size_t>(w.shape[3]) != s.out_c)
    return ctx.Fail(
        Status::kShapeMismatch,
        "a grouped conv with transposed weights must be depthwise with W [1, kh, kw, C]");
  if (!o.x_hwc || !o.y_hwc)
    return ctx.Fail(
        Status::kInvalidModel,
        "a depthwise conv with transposed weights reads and writes NHWC (both layouts)");
  ConvPrepared& p = SetPrepared(ctx, s, ConvPath::kTransposed, false);
  if (p.conv->conv2d_depthwise_hwc == nullptr)
    return ctx.Fail(Status::kUnsupportedOp,
                    "this build's kernels have no NHWC depthwise conv (Cortex-M: compile the "
                    "model with --no-transposed-weights)");
  return Status::kOk;
}

// Sets `shape` (MakeConv2dShape reads Cout from W's first dim, which here is Cin).
Status PrepareTransposed(OpContext& ctx, kernels::Conv2dShape s) {
  const TensorInfo& w = ctx.input(1);
  const ConvOptions& o = ctx.op.options.conv;
  s.out_c = static_cast<size_t>(ctx.output(0).shape[1]);
  if (s.group != 1 && ctx.input(0).rank == 4) {
    if (static_cast<size_t>(ctx.output(0).shape[0]) != static_cast<size_t>(ctx.input(0).shape[0]) ||
        !OutputFollowsWindow(o, s))
      return ctx.Fail(Status::kShapeMismatch, "Y shape does not follow from X, W and the options");
    if (ctx.has_input(2) && ctx.input(2).elems != s.out_c)
      return ctx.Fail(Status::kShapeMismatch, "bias has %zu values for %zu output channels",
                      ctx.input(2).elems, s.out_c);
    return PrepareDepthwiseHwc(ctx, s);
  }
  if (o.x_hwc && !kernels::ConvIsPointwise(s))
    return ctx.Fail(Status::kInvalidModel,
                    "an NHWC input needs a pointwise or a depthwise conv (this one is %zux%zu, "
                    "stride %zu)",
                    s.kh, s.kw, s.stride_h);
  if (s.group != 1 || s.stride_w > 2 || ctx.input(0).rank != 4 || w.rank != 4 ||
      static_cast<size_t>(w.shape[0]) != s.in_c || static_cast<size_t>(w.shape[1]) != s.kh ||
      static_cast<size_t>(w.shape[2]) != s.kw || static_cast<size_t>(w.shape[3]) != s.out_c)
    return ctx.Fail(Status::kShapeMismatch,
                    "transposed weights need a group-1 2-D conv with a column stride of 1 or 2 "
                    "and W [Cin, kh, kw, Cout]");
  if (static_cast<size_t>(ctx.output(0).shape[0]) != static_cast<size_t>(ctx.input(0).shape[0]) ||
      !OutputFollowsWindow(ctx.op.options.conv, s))
    return ctx.Fail(Status::kShapeMismatch, "Y shape does not follow from X, W and the options");
  if (ctx.has_input(2) && ctx.input(2).elems != s.out_c)
    return ctx.Fail(Status::kShapeMismatch, "bias has %zu values for %zu output channels",
                    ctx.input(2).elems, s.out_c);
  const size_t scratch = kernels::ConvKmScratchBytes(s);
  if (ctx.op.scratch_bytes < scratch)
    return ctx.Fail(Status::kInvalidModel, "needs %zu scratch bytes, the plan gives %zu", scratch,
                    ctx.op.scratch_bytes);
  SetPrepared(ctx, s, ConvPath::kTransposed, false);
  return Status::kOk;
}

// Each task takes whole registers of channels (the kernel's sums do not depend on it).
void RunDepthwiseHwc(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t lanes = std::max<size_t>(1, ctx.k.simd_floats);
  const size_t in_image = s.in_c * s.in_h * s.in_w, out_image = s.out_c * s.out_h * s.out_w;
  for (size_t n = 0; n < p.batch; ++n)
    ForEachRowRange(
        ctx.parallel, s.out_c, s.out_h * s.out_w * s.kh * s.kw, lanes, [&](size_t c0, size_t c1) {
          kernels::DepthwiseHwcParams dp;
          dp.s = s, dp.c_begin = c0, dp.c_end = c1;
          dp.bias = io.bias, dp.act = ctx.op.options.conv.act;
          p.conv->conv2d_depthwise_hwc(dp, io.x + n * in_image, io.w, io.y + n * out_image);
        });
}

// Each task takes whole registers of output channels (the kernel's sums do not depend on it).
void RunTransposed(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  if (s.group != 1) return RunDepthwiseHwc(ctx, p, io);
  const bool pointwise = kernels::ConvIsPointwise(s);
  kernels::ConvKmParams kp;
  kp.in_c = s.in_c, kp.out_c = s.out_c;
  kp.kh = s.kh, kp.kw = s.kw, kp.stride_h = s.stride_h, kp.stride_w = s.stride_w;
  kp.dilation_h = s.dilation_h, kp.dilation_w = s.dilation_w;
  if (pointwise) {  // one row of pixels, read in place
    kp.x_h = kp.out_h = 1;
    kp.x_w = kp.out_w = s.out_h * s.out_w;
  } else {
    kernels::ConvKmPlane(s, &kp.x_h, &kp.x_w);
    kp.out_h = s.out_h, kp.out_w = s.out_w;
  }
  kp.bias = io.bias;
  kp.act = ctx.op.options.conv.act;
  kp.x_hwc = ctx.op.options.conv.x_hwc;  // pointwise only (PrepareTransposed)
  kp.y_hwc = ctx.op.options.conv.y_hwc;
  const size_t lanes = std::max<size_t>(1, ctx.k.simd_floats);
  const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  for (size_t n = 0; n < p.batch; ++n) {
    const float* xn = io.x + n * s.in_c * in_plane;
    float* yn = io.y + n * s.out_c * out_plane;
    if (!pointwise) {
      ForEachRowRange(
          ctx.parallel, s.in_c, kp.x_h * kp.x_w * kElementWork, 1,
          [&](size_t c0, size_t c1) { FillPadded(s, kp.x_h, kp.x_w, xn, ctx.op.scratch, c0, c1); });
      xn = ctx.op.scratch;
    }
    ForEachRowRange(ctx.parallel, s.out_c, out_plane * s.in_c * s.kh * s.kw, lanes,
                    [&](size_t o0, size_t o1) {
                      kernels::ConvKmParams part = kp;
                      part.o_begin = o0, part.o_end = o1;
                      ctx.k.conv_km(part, io.w, xn, yn);
                    });
  }
}

}  // namespace edgefold::internal::conv
