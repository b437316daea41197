// Slice: strided crop. For every axis d, y[.., i_d, ..] = x[.., start_d + i_d·step_d, ..]
// (step may be negative); the output tensor's shape gives the extent. Split lowers to one
// Slice per output.
#include "ops/op_kernel.h"

namespace edgefold::internal {
namespace {

struct SlicePrepared {
  int rank;
  size_t base;                   // x offset of the first element
  size_t out_dims[kMaxRank];
  ptrdiff_t in_step[kMaxRank];   // x offset per output index along each axis
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const SliceOptions& o = ctx.op.options.slice;
  if (o.rank != x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "starts have %d axes, input rank %d, output rank %d", o.rank, x.rank, y.rank);
  SlicePrepared& p = ctx.prepared<SlicePrepared>();
  p.rank = x.rank;
  p.base = 0;
  ptrdiff_t stride = 1;
  for (int d = x.rank - 1; d >= 0; --d) {
    const int64_t start = o.starts[d], step = o.steps[d], n = y.shape[d];
    const int64_t last = start + (n - 1) * step;
    if (step == 0 || start < 0 || start >= x.shape[d] || last < 0 || last >= x.shape[d])
      return ctx.Fail(Status::kShapeMismatch, "axis %d: start %d step %d for %d outputs leaves input dim %d",
                      d, o.starts[d], o.steps[d], y.shape[d], x.shape[d]);
    p.base += static_cast<size_t>(start * stride);
    p.out_dims[d] = static_cast<size_t>(n);
    p.in_step[d] = static_cast<ptrdiff_t>(step) * stride;
    stride *= x.shape[d];
  }
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const SlicePrepared& p = ctx.prepared<SlicePrepared>();
  const float* x = ctx.input(0).data + p.base;
  float* y = ctx.output(0).data;
  const size_t n = ctx.output(0).elems;
  if (p.rank == 0) { y[0] = x[0]; return Status::kOk; }
  size_t index[kMaxRank] = {};
  ptrdiff_t src = 0;
  const int last = p.rank - 1;
  for (size_t i = 0; i < n;) {
    // Innermost axis as a strided gather, then advance the odometer.
    for (size_t j = 0; j < p.out_dims[last]; ++j) y[i++] = x[src + static_cast<ptrdiff_t>(j) * p.in_step[last]];
    for (int d = last - 1; d >= 0; --d) {
      src += p.in_step[d];
      if (++index[d] < p.out_dims[d]) break;
      src -= p.in_step[d] * static_cast<ptrdiff_t>(p.out_dims[d]);
      index[d] = 0;
    }
  }
  return Status::kOk;
}

const OpKernel kSlice = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterSlice() { return &kSlice; }

}  // namespace edgefold::internal
