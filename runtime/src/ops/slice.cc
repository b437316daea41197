// Slice: strided crop (float32 or int8). For every axis d, y[.., i_d, ..] = x[.., start_d + i_d·step_d, ..]
// (step may be negative); the output tensor's shape gives the extent. Split lowers to one
// Slice per output. A slice of one contiguous run may be planned inside its input (a view; the
// model reader accepts only that exact overlap): then there is nothing to copy.
#include "kernels/reference.h"
#include "ops/int8_operands.h"
#include "ops/strided_views.h"

namespace edgefold::internal {
namespace {

struct SlicePrepared {
  kernels::StridedCopyParams copy;
  size_t base;  // x offset of the first element
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const SliceOptions& o = ctx.op.options.slice;
  EDGEFOLD_RETURN_IF_ERROR(CheckCopyDtypes(ctx, x, y));
  if (o.rank != x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "starts have %d axes, input rank %d, output rank %d",
                    o.rank, x.rank, y.rank);
  SlicePrepared& p = ctx.prepared<SlicePrepared>();
  p.base = 0;
  ptrdiff_t in_step[kMaxRank];
  ptrdiff_t stride = 1;
  for (int d = x.rank - 1; d >= 0; --d) {
    const int64_t start = o.starts[d], step = o.steps[d], n = y.shape[d];
    const int64_t last = start + (n - 1) * step;
    if (step == 0 || start < 0 || start >= x.shape[d] || last < 0 || last >= x.shape[d])
      return ctx.Fail(Status::kShapeMismatch,
                      "axis %d: start %d step %d for %d outputs leaves input dim %d", d,
                      o.starts[d], o.steps[d], y.shape[d], x.shape[d]);
    p.base += static_cast<size_t>(start * stride);
    in_step[d] = static_cast<ptrdiff_t>(step) * stride;
    stride *= x.shape[d];
  }
  p.copy = GatherInto(y, in_step);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const SlicePrepared& p = ctx.prepared<SlicePrepared>();
  // A contiguous slice the compiler planned inside its input (a view): nothing to copy.
  if (ctx.output(0).dtype == DType::kInt8 ? S8Data(ctx.output(0)) == S8Data(ctx.input(0)) + p.base
                                          : ctx.output(0).data == ctx.input(0).data + p.base)
    return Status::kOk;
  if (ctx.output(0).dtype == DType::kInt8)
    kernels::ref::StridedCopyS8(p.copy, S8Data(ctx.input(0)) + p.base, S8Data(ctx.output(0)));
  else
    ctx.k.strided_copy(p.copy, ctx.input(0).data + p.base, ctx.output(0).data);
  return Status::kOk;
}

const OpKernel kSlice = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterSlice() { return &kSlice; }

}  // namespace edgefold::internal
