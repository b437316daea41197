// ConvInt8 (1-D and 2-D, any stride, padding, dilation and group count; depthwise is the
// group == channels case). Inputs X int8, W int8 [Cout, Cin/g, kh, kw], B, M, shift (int32).
//   y[n, oc, ·] = requantize_oc(B[oc] + Σ w[oc, ic, ky, kx]·x[n, ic, iy, ix])
// with x read as zp_x outside the image (real 0); B holds −zp_x·Σw (ops/int8_operands.h).
// Depthwise convs with strides up to 2 run the table's direct kernel over zp-padded planes;
// otherwise, per image and group, one int8 GEMM on the input itself for pointwise convs, else
// one per chunk of output rows on that chunk's int8 im2col (or, where the table has
// conv_s8_direct and kernels::ConvS8DirectFits, one reading the input itself), columns split
// over the caller's threads (the depthwise path runs on one: its plane is one scratch buffer). Scratch:
// kernels::ConvS8ScratchBytes, planned by the compiler.
#include <algorithm>

#include "kernels/conv/conv_s8_direct.h"
#include "kernels/conv/conv_scratch.h"
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"
#include "ops/parallel.h"
#include "ops/shape_util.h"
#include "ops/window_params.h"

namespace edgefold::internal {
namespace {

struct ConvInt8Prepared {
  kernels::Conv2dShape shape;
  size_t batch;
  bool pointwise;
  bool depthwise_plane;
  bool direct;  // Int8KernelTable::conv_s8_direct: no im2col
  int8_t x_zero_point;
  size_t chunk_rows;  // output rows per im2col chunk: as many as the plan's scratch holds
  // Grouped, not depthwise: the copies of one thread's scratch the plan holds (the most threads
  // the conv splits over by group; kernels::ConvSplitsByGroup), each slice_bytes; else 1.
  size_t group_slices;
  size_t slice_bytes;
  bool w_pairs_fit_u8;  // kernels::S8PairsFitU8 of W's out_c rows (GemmS8Params)
  const kernels::Int8KernelTable* int8;
};

// W, Y and the options agree with X: channels and groups, the window's output size, the
// accumulator's range, W's scales.
Status CheckConvInt8Shapes(OpContext& ctx, const ConvOptions& o, const kernels::Conv2dShape& s,
                           const TensorInfo& x, const TensorInfo& w, const TensorInfo& y) {
  const size_t in_cg = s.in_c / s.group;
  if (s.in_c % s.group != 0 || s.out_c % s.group != 0 || static_cast<size_t>(w.shape[1]) != in_cg ||
      static_cast<size_t>(y.shape[1]) != s.out_c || y.shape[0] != x.shape[0] ||
      static_cast<size_t>(w.shape[w.rank - 1]) != s.kw ||
      (x.rank == 4 && static_cast<size_t>(w.shape[2]) != s.kh))
    return ctx.Fail(Status::kShapeMismatch, "W, groups and channels do not agree");
  const int h_axis = x.rank == 4 ? 0 : -1;
  const long want_w = WindowOutput(static_cast<long>(s.in_w), o.pads[1], o.pads[3], o.kernel[1],
                                   o.strides[1], o.dilations[1], false);
  const long want_h = h_axis < 0 ? 1
                                 : WindowOutput(static_cast<long>(s.in_h), o.pads[0], o.pads[2],
                                                o.kernel[0], o.strides[0], o.dilations[0], false);
  if (static_cast<long>(s.out_w) != want_w || static_cast<long>(s.out_h) != want_h)
    return ctx.Fail(Status::kShapeMismatch,
                    "Y spatial size does not follow from X and the options");
  if (in_cg * s.kh * s.kw > kernels::kMaxGemmS8K)
    return ctx.Fail(Status::kInvalidModel,
                    "%zu products per output exceed the int32 accumulator's range",
                    in_cg * s.kh * s.kw);
  if (w.num_scales != 0 && w.num_scales != 1 && w.num_scales != s.out_c)
    return ctx.Fail(Status::kInvalidModel, "W needs one scale or one per output channel");
  return Status::kOk;
}

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Activation(ctx, x, "X"));
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Activation(ctx, y, "Y"));
  if (w.dtype != DType::kInt8 || !w.is_constant)
    return ctx.Fail(Status::kInvalidModel, "W '%s' must be an int8 constant", w.name);
  if ((x.rank != 3 && x.rank != 4) || w.rank != x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "X, W and Y must all be rank 3 (1-D) or 4 (2-D)");
  const ConvOptions o = ConvOptionsOfInt8(ctx.op.options);
  const kernels::Conv2dShape s = MakeConv2dShape(o, x, w, y);
  EDGEFOLD_RETURN_IF_ERROR(CheckConvInt8Shapes(ctx, o, s, x, w, y));
  const size_t in_cg = s.in_c / s.group;
  EDGEFOLD_RETURN_IF_ERROR(CheckRequantOperands(ctx, 2, s.out_c));
  const bool pointwise = kernels::ConvIsPointwise(s);
  const bool depthwise_plane = kernels::ConvS8UsesDepthwisePlane(s);
  // The depthwise plane needs its whole size; im2col at least one output row, and builds as
  // many rows per chunk as the plan's scratch holds (up to ConvS8Im2colRows): a model planned
  // by another version of the compiler, with other chunks, still runs.
  const size_t row_bytes = in_cg * s.kh * s.kw * s.out_w;
  const size_t scratch = pointwise         ? 0
                         : depthwise_plane ? kernels::ConvS8DepthwisePlaneBytes(s)
                                           : row_bytes;
  if (ctx.op.scratch_bytes < scratch)
    return ctx.Fail(Status::kInvalidModel, "needs %zu scratch bytes for %s, the plan gives %zu",
                    scratch, depthwise_plane ? "its padded planes" : "one output row of im2col",
                    ctx.op.scratch_bytes);
  const size_t one_slice = kernels::ConvS8ScratchBytes(s);
  const size_t group_slices = kMultiThreaded && kernels::ConvSplitsByGroup(s)
                                  ? kernels::ConvScratchSlicesHeld(one_slice, ctx.op.scratch_bytes)
                                  : 1;
  const size_t slice_bytes =
      group_slices > 1 ? kernels::ConvScratchSliceBytes(one_slice) : ctx.op.scratch_bytes;
  const size_t chunk_rows =
      pointwise || depthwise_plane
          ? s.out_h
          : std::min(kernels::ConvS8Im2colRows(s), slice_bytes / std::max<size_t>(1, row_bytes));
  const kernels::Int8KernelTable* int8 = FamilyTable<kernels::Int8KernelTable>(ctx);
  ctx.prepared<ConvInt8Prepared>() = ConvInt8Prepared{
      s,
      static_cast<size_t>(x.shape[0]),
      pointwise,
      depthwise_plane,
      kernels::kX86Int8Paths && !pointwise && !depthwise_plane && int8->conv_s8_direct != nullptr &&
          kernels::ConvS8DirectFits(s) && in_cg >= int8->conv_s8_direct_min_channels,
      static_cast<int8_t>(x.zero_points[0]),
      std::max<size_t>(1, chunk_rows),
      group_slices,
      slice_bytes,
      kernels::kX86Int8Paths &&
          kernels::S8PairsFitU8(S8Data(w), s.out_c, in_cg * s.kh * s.kw, in_cg * s.kh * s.kw),
      int8};
  return Status::kOk;
}

// Groups [g0, g1) of image n, im2col chunks in `col` (the task's slice of the scratch), each
// GEMM's columns split over `parallel` (null: on the calling thread). `p` carries the operands
// every group shares; the requantization is set per group.
void RunGroups(OpContext& ctx, const ConvInt8Prepared& pr, kernels::GemmS8Params p, const int8_t* x,
               const int8_t* w, int8_t* y, size_t n, size_t g0, size_t g1, int8_t* col,
               const Parallel* parallel) {
  const kernels::Conv2dShape& s = pr.shape;
  const size_t in_cg = s.in_c / s.group, out_cg = s.out_c / s.group, pixels = s.out_h * s.out_w;
  for (size_t g = g0; g < g1; ++g) {
    const int8_t* xg = x + (n * s.in_c + g * in_cg) * s.in_h * s.in_w;
    SetRequant(ctx, 2, g * out_cg, ctx.op.options.int8.act_min, ctx.op.options.int8.act_max, &p);
    int8_t* yg = y + (n * s.out_c + g * out_cg) * pixels;
    const int8_t* wg = w + g * out_cg * p.k;
    if (kernels::kX86Int8Paths &&
        pr.direct) {  // the same columns and sums as over the im2col, B read from X
      ForEachRowRange(parallel, pixels, p.m * p.k, 32, [&](size_t j0, size_t j1) {
        kernels::GemmS8Params part = p;
        part.n = j1 - j0;
        pr.int8->conv_s8_direct(part, s, xg, pr.x_zero_point, wg, j0, yg + j0);
      });
      continue;
    }
    // Pointwise: one GEMM over the input itself; else a GEMM per chunk of output rows over that
    // chunk's im2col (the scratch holds one chunk).
    for (size_t row0 = 0; row0 < s.out_h; row0 += pr.chunk_rows) {
      const size_t cols = std::min(pr.chunk_rows, s.out_h - row0) * s.out_w;
      if (!pr.pointwise) pr.int8->im2col_s8(s, xg, pr.x_zero_point, row0, pr.chunk_rows, col);
      const int8_t* b = pr.pointwise ? xg : col;
      p.ldb = pr.pointwise ? pixels : cols;
      int8_t* y_chunk = yg + row0 * s.out_w;
      // The columns split over threads in whole 32-column panels: each task packs only its
      // own columns of B, and every output is the same sum in the same order.
      ForEachRowRange(parallel, cols, p.m * p.k, 32, [&](size_t j0, size_t j1) {
        kernels::GemmS8Params part = p;
        part.n = j1 - j0;
        pr.int8->gemm_s8(part, wg, b + j0, y_chunk + j0);
      });
    }
  }
}

// Every path but the depthwise plane: per image and group, GEMMs over the input or im2col chunks.
void RunGroupGemms(OpContext& ctx, const ConvInt8Prepared& pr, const int8_t* x, const int8_t* w,
                   int8_t* y, int8_t* col) {
  const kernels::Conv2dShape& s = pr.shape;
  const size_t in_cg = s.in_c / s.group, out_cg = s.out_c / s.group, pixels = s.out_h * s.out_w;
  kernels::GemmS8Params shared;  // every group's; the requantization set per group
  shared.m = out_cg;
  shared.k = in_cg * s.kh * s.kw;
  shared.lda = shared.k;
  shared.ldy = pixels;
  shared.a_pairs_fit_u8 = pr.w_pairs_fit_u8;
  // A grouped conv whose plan holds scratch for several threads, with at least as many groups
  // as threads: each task a contiguous range of whole groups in its own slice, each GEMM on one
  // thread (the same sums in the same order). Fewer groups: all the threads on each in turn.
  const size_t tasks = !kMultiThreaded || ctx.parallel == nullptr || ctx.parallel->run == nullptr ||
                               s.group < ctx.parallel->threads
                           ? 1
                           : std::min(ctx.parallel->threads, pr.group_slices);
  for (size_t n = 0; n < pr.batch; ++n) {
    if (tasks < 2) {
      RunGroups(ctx, pr, shared, x, w, y, n, 0, s.group, col, ctx.parallel);
      continue;
    }
    Parallel by_group = *ctx.parallel;
    by_group.threads = tasks;
    ForEachRowTask(
        &by_group, s.group, out_cg * shared.k * pixels, 1, [&](size_t task, size_t g0, size_t g1) {
          RunGroups(ctx, pr, shared, x, w, y, n, g0, g1, col + task * pr.slice_bytes, nullptr);
        });
  }
}

Status Eval(OpContext& ctx) {
  const ConvInt8Prepared& pr = ctx.prepared<ConvInt8Prepared>();
  const kernels::Conv2dShape& s = pr.shape;
  const size_t pixels = s.out_h * s.out_w;
  const int8_t* x = S8Data(ctx.input(0));
  const int8_t* w = S8Data(ctx.input(1));
  int8_t* y = S8Data(ctx.output(0));
  int8_t* col = reinterpret_cast<int8_t*>(ctx.op.scratch);
  if (pr.depthwise_plane) {
    kernels::GemmS8Params p;
    SetRequant(ctx, 2, 0, ctx.op.options.int8.act_min, ctx.op.options.int8.act_max, &p);
    p.depthwise_scratch_bytes = ctx.op.scratch_bytes;
    for (size_t n = 0; n < pr.batch; ++n)
      pr.int8->conv2d_depthwise_s8(s, x + n * s.in_c * s.in_h * s.in_w, w, pr.x_zero_point, p, col,
                                   y + n * s.out_c * pixels);
    return Status::kOk;
  }
  RunGroupGemms(ctx, pr, x, w, y, col);
  return Status::kOk;
}

const OpKernel kConvInt8 = {Prepare, Eval, 5, 5};

}  // namespace

const OpKernel* RegisterConvInt8() { return &kConvInt8; }

}  // namespace edgefold::internal
