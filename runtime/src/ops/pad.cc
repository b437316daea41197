// Constant Pad: y = value everywhere, then x copied in at offset pads[begin]. Non-negative pads.
#include "ops/op_kernel.h"
#include "ops/strided_views.h"

namespace edgefold::internal {
namespace {

struct PadPrepared {
  kernels::StridedCopyParams copy;   // x → y's interior
  size_t offset;                     // flat output index of x[0, ..., 0]
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const PadOptions& o = ctx.op.options.pad;
  if (o.num_pads != 2 * x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "pads has %d values for rank %d", static_cast<int>(o.num_pads), x.rank);
  for (int d = x.rank - 1; d >= 0; --d) {
    // 64-bit sum: dims and pads are each up to INT32_MAX.
    if (static_cast<int64_t>(y.shape[d]) !=
        static_cast<int64_t>(x.shape[d]) + o.pads[d] + o.pads[d + x.rank])
      return ctx.Fail(Status::kShapeMismatch, "output dim %d != input + pads", d);
  }
  PadPrepared& p = ctx.prepared<PadPrepared>();
  p.copy = PadCopy(x, y, o.pads, &p.offset);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const PadPrepared& p = ctx.prepared<PadPrepared>();
  float* y = ctx.output(0).data;
  const float value = ctx.op.options.pad.value;
  for (size_t i = 0; i < ctx.output(0).elems; ++i) y[i] = value;
  ctx.k.strided_copy(p.copy, ctx.input(0).data, y + p.offset);
  return Status::kOk;
}

const OpKernel kPad = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterPad() { return &kPad; }

}  // namespace edgefold::internal
