// Conv's fused-expansion path (kExpandDepthwise): a depthwise conv over t = act_e(We·x + be),
// computed band by band into scratch (kernels/conv/conv_expand.h).
#include <algorithm>

#include "kernels/cpu_caches.h"
#include "ops/conv_paths.h"
#include "kernels/conv/conv_scratch.h"
#include "ops/window_params.h"

namespace edgefold::internal::conv {

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

}  // namespace edgefold::internal::conv
