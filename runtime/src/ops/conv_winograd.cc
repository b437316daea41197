// Conv's Winograd paths (kWinograd23, kWinograd43): weights the compiler stored in the
// Winograd domain, 3×3 stride-1 convs, kernels/conv/conv_winograd.h.
#include <algorithm>

#include "kernels/conv/conv_scratch.h"
#include "kernels/conv/conv_winograd.h"
#include "ops/conv_paths.h"
#include "ops/parallel.h"

namespace edgefold::internal::conv {
namespace {

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

// Winograd, one image, in a plan with a scratch slice per thread (Operator.scratch_slices): each
// task its own tile rows in its own slice, fill included, in one parallel step. Tasks go to
// threads by index (the pool runs task t on thread t first), so a thread writes the same slice,
// and the output rows the next conv reads, op after op.
void WinogradBySlices(OpContext& ctx, const ConvPrepared& p, const kernels::WinogradLayout& l,
                      const kernels::WinogradSlice& slice, const ConvIo& io, const float* xn,
                      float* yn) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t slices = ctx.op.scratch_slices;
  const size_t slice_floats = ctx.op.scratch_bytes / slices / sizeof(float);
  Parallel par;
  if (ctx.parallel != nullptr) par = *ctx.parallel;
  par.threads = std::min(par.threads, slices);
  const size_t row_work = l.alpha * l.alpha * s.in_c * s.out_c * l.geometry.tiles_w;
  ForEachRowTask(&par, l.tiles_h, row_work, 1, [&](size_t task, size_t r0, size_t r1) {
    kernels::WinogradSliceRows(ctx.k, *p.conv, s, l, slice, xn, io.w, io.bias,
                               ctx.op.options.conv.act, yn, ctx.op.scratch + task * slice_floats,
                               r0, r1);
  });
}

// The slice a plan of `slices` slices gives each task: the tile rows of the largest share.
kernels::WinogradSlice SliceOf(const kernels::WinogradLayout& l, size_t slices) {
  return kernels::MakeWinogradSlice(l, (l.tiles_h + slices - 1) / std::max<size_t>(slices, 1));
}

}  // namespace

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
  const kernels::WinogradLayout layout = kernels::MakeWinogradLayout(s, tile);
  if (ctx.op.scratch_slices > 1) {
    const size_t slices = ctx.op.scratch_slices;
    if (ctx.op.scratch_bytes % (64 * slices) != 0)
      return ctx.Fail(Status::kInvalidModel,
                      "scratch_slices %zu do not cut scratch_bytes %zu into 64-byte slices", slices,
                      ctx.op.scratch_bytes);
    const size_t need = SliceOf(layout, slices).bytes;
    if (ctx.op.scratch_bytes / slices < need)
      return ctx.Fail(Status::kInvalidModel,
                      "needs %zu scratch bytes per slice, the plan gives %zu in each of %zu", need,
                      ctx.op.scratch_bytes / slices, slices);
    SetPrepared(ctx, s, path, false);
    return Status::kOk;
  }
  const size_t scratch = layout.scratch_bytes;
  if (ctx.op.scratch_bytes < scratch)
    return ctx.Fail(Status::kInvalidModel, "needs %zu scratch bytes, the plan gives %zu", scratch,
                    ctx.op.scratch_bytes);
  SetPrepared(ctx, s, path, false);
  return Status::kOk;
}

// kWinograd23 / kWinograd43. The layout is recomputed per run (a few dozen integer ops): with
// the shape it would not fit kPreparedBytes.
void RunWinograd(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const kernels::WinogradLayout l = kernels::MakeWinogradLayout(s, WinogradTile(p.path));
  if (ctx.op.scratch_slices > 1) {  // one task per slice at most; on one thread, in turn
    const kernels::WinogradSlice slice = SliceOf(l, ctx.op.scratch_slices);
    for (size_t n = 0; n < p.batch; ++n)
      WinogradBySlices(ctx, p, l, slice, io, io.x + n * s.in_c * s.in_h * s.in_w,
                       io.y + n * s.out_c * s.out_h * s.out_w);
    return;
  }
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

}  // namespace edgefold::internal::conv
