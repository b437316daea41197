// Constant Pad: y = value everywhere, then x copied in at offset pads[begin]. Non-negative pads.
// float32, or int8 (value quantized into the shared scale and zero point, as Quantize rounds).
#include <cmath>
#include <cstring>

#include "kernels/reference.h"
#include "ops/int8_operands.h"
#include "ops/strided_views.h"

namespace edgefold::internal {
namespace {

struct PadPrepared {
  kernels::StridedCopyParams copy;  // x → y's interior
  size_t offset;                    // flat output index of x[0, ..., 0]
  int8_t value_s8;                  // int8 tensors: the pad value in their scale and zero point
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const PadOptions& o = ctx.op.options.pad;
  EDGEFOLD_RETURN_IF_ERROR(CheckCopyDtypes(ctx, x, y));
  if (o.num_pads != 2 * x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "pads has %d values for rank %d",
                    static_cast<int>(o.num_pads), x.rank);
  for (int d = x.rank - 1; d >= 0; --d) {
    // 64-bit sum: dims and pads are each up to INT32_MAX.
    if (static_cast<int64_t>(y.shape[d]) !=
        static_cast<int64_t>(x.shape[d]) + o.pads[d] + o.pads[d + x.rank])
      return ctx.Fail(Status::kShapeMismatch, "output dim %d != input + pads", d);
  }
  PadPrepared& p = ctx.prepared<PadPrepared>();
  p.copy = PadCopy(x, y, o.pads, &p.offset);
  p.value_s8 = 0;
  if (y.dtype == DType::kInt8) {
    const float q = std::nearbyint(o.value / y.scales[0]) + static_cast<float>(y.zero_points[0]);
    if (!(q >= -128.0f && q <= 127.0f))
      return ctx.Fail(Status::kInvalidModel, "pad value %g is outside the int8 range of '%s'",
                      double(o.value), y.name);
    p.value_s8 = static_cast<int8_t>(q);
  }
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const PadPrepared& p = ctx.prepared<PadPrepared>();
  if (ctx.output(0).dtype == DType::kInt8) {
    int8_t* y8 = S8Data(ctx.output(0));
    std::memset(y8, p.value_s8, ctx.output(0).elems);
    kernels::ref::StridedCopyS8(p.copy, S8Data(ctx.input(0)), y8 + p.offset);
    return Status::kOk;
  }
  float* y = ctx.output(0).data;
  const float value = ctx.op.options.pad.value;
  for (size_t i = 0; i < ctx.output(0).elems; ++i) y[i] = value;
  ctx.k.strided_copy(p.copy, ctx.input(0).data, y + p.offset);
  return Status::kOk;
}

const OpKernel kPad = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterPad() { return &kPad; }

}  // namespace edgefold::internal
