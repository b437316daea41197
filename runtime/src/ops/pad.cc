// Constant Pad: y = value everywhere, then x copied in at offset pads[begin]. Non-negative pads.
#include <cstring>

#include "ops/op_kernel.h"

namespace edgefold::internal {
namespace {

struct PadPrepared {
  int rank;
  size_t in_dims[kMaxRank];
  size_t out_stride[kMaxRank];
  size_t offset;   // flat output index of x[0, ..., 0]
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const PadOptions& o = ctx.op.options.pad;
  if (o.num_pads != 2 * x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "pads has %d values for rank %d", static_cast<int>(o.num_pads), x.rank);
  PadPrepared& p = ctx.prepared<PadPrepared>();
  p.rank = x.rank;
  size_t step = 1;
  for (int d = x.rank - 1; d >= 0; --d) {
    // 64-bit sum: dims and pads are each up to INT32_MAX.
    if (static_cast<int64_t>(y.shape[d]) !=
        static_cast<int64_t>(x.shape[d]) + o.pads[d] + o.pads[d + x.rank])
      return ctx.Fail(Status::kShapeMismatch, "output dim %d != input + pads", d);
    p.in_dims[d] = static_cast<size_t>(x.shape[d]);
    p.out_stride[d] = step;
    step *= static_cast<size_t>(y.shape[d]);
  }
  p.offset = 0;
  for (int d = 0; d < x.rank; ++d) p.offset += static_cast<size_t>(o.pads[d]) * p.out_stride[d];
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const PadPrepared& p = ctx.prepared<PadPrepared>();
  const float* x = ctx.input(0).data;
  float* y = ctx.output(0).data;
  const float value = ctx.op.options.pad.value;
  for (size_t i = 0; i < ctx.output(0).elems; ++i) y[i] = value;
  if (p.rank == 0) { y[0] = x[0]; return Status::kOk; }
  const int last = p.rank - 1;
  const size_t rows = ctx.input(0).elems / p.in_dims[last];
  size_t index[kMaxRank] = {};
  size_t dst = p.offset;
  for (size_t r = 0; r < rows; ++r) {
    std::memcpy(y + dst, x + r * p.in_dims[last], p.in_dims[last] * sizeof(float));
    for (int d = last - 1; d >= 0; --d) {
      dst += p.out_stride[d];
      if (++index[d] < p.in_dims[d]) break;
      dst -= p.out_stride[d] * p.in_dims[d];
      index[d] = 0;
    }
  }
  return Status::kOk;
}

const OpKernel kPad = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterPad() { return &kPad; }

}  // namespace edgefold::internal
