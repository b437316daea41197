// Conv's kTransposed path: a group-1 conv whose W the compiler stored as Wᵀ [Cin, kh, kw, Cout]
// (WeightPacking Transposed: pointwise convs on planes of few pixels, stride-2 convs of small
// networks), run by the core table's conv_km: output channels in the vector lanes. A pointwise
// conv reads its input in place as one row of pixels; others first copy the padded input into
// scratch (kernels::ConvKmScratchBytes).
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

// Sets `shape` (MakeConv2dShape reads Cout from W's first dim, which here is Cin).
Status PrepareTransposed(OpContext& ctx, kernels::Conv2dShape s) {
  const TensorInfo& w = ctx.input(1);
  s.out_c = static_cast<size_t>(ctx.output(0).shape[1]);
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

// Each task takes whole registers of output channels (the kernel's sums do not depend on it).
void RunTransposed(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
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
