// Conv's kPointwiseTransposed path: a 1×1 stride-1 unpadded group-1 conv whose W the compiler
// stored as Wᵀ [Cin, Cout, 1, 1] (WeightPacking PointwiseTransposed, chosen for planes of few
// pixels), run by the core table's pointwise_km: output channels in the vector lanes.
#include <algorithm>

#include "kernels/conv/conv_scratch.h"
#include "ops/conv_paths.h"
#include "ops/parallel.h"

namespace edgefold::internal::conv {

// Sets `shape` (MakeConv2dShape reads Cout from W's first dim, which here is Cin).
Status PreparePointwiseTransposed(OpContext& ctx, kernels::Conv2dShape s) {
  const TensorInfo& w = ctx.input(1);
  s.out_c = static_cast<size_t>(ctx.output(0).shape[1]);
  if (!kernels::ConvIsPointwise(s) || s.group != 1 || s.dilation_h != 1 || s.dilation_w != 1 ||
      ctx.input(0).rank != 4 || w.rank != 4 || static_cast<size_t>(w.shape[0]) != s.in_c ||
      static_cast<size_t>(w.shape[1]) != s.out_c || w.shape[2] != 1 || w.shape[3] != 1)
    return ctx.Fail(Status::kShapeMismatch,
                    "transposed pointwise weights need a 1x1 stride-1 unpadded group-1 conv and "
                    "W [Cin, Cout, 1, 1]");
  if (static_cast<size_t>(ctx.output(0).shape[0]) != static_cast<size_t>(ctx.input(0).shape[0]))
    return ctx.Fail(Status::kShapeMismatch, "Y shape does not follow from X, W and the options");
  if (ctx.has_input(2) && ctx.input(2).elems != s.out_c)
    return ctx.Fail(Status::kShapeMismatch, "bias has %zu values for %zu output channels",
                    ctx.input(2).elems, s.out_c);
  SetPrepared(ctx, s, ConvPath::kPointwiseTransposed, false);
  return Status::kOk;
}

// Each task takes whole registers of output channels (the kernel's sums do not depend on it).
void RunPointwiseTransposed(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t pixels = s.out_h * s.out_w;
  kernels::PointwiseKmParams kp;
  kp.in_c = s.in_c, kp.out_c = s.out_c, kp.pixels = pixels;
  kp.bias = io.bias;
  kp.act = ctx.op.options.conv.act;
  const size_t lanes = std::max<size_t>(1, ctx.k.simd_floats);
  for (size_t n = 0; n < p.batch; ++n) {
    const float* xn = io.x + n * s.in_c * pixels;
    float* yn = io.y + n * s.out_c * pixels;
    ForEachRowRange(ctx.parallel, s.out_c, pixels * s.in_c, lanes, [&](size_t o0, size_t o1) {
      kernels::PointwiseKmParams part = kp;
      part.o_begin = o0, part.o_end = o1;
      ctx.k.pointwise_km(part, io.w, xn, yn);
    });
  }
}

}  // namespace edgefold::internal::conv
