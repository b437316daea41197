// Quantize (float X → int8 Y with Y's scale and zero point) and Dequantize (int8 X → float Y
// with X's): the boundaries between float and int8 parts of a mixed-precision graph.
//   Quantize:   q = clamp(round_half_even(x / s) + zp, −128, 127)  (x·(1/s), NaN → zp)
//   Dequantize: y = (q − zp)·s
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"

namespace edgefold::internal {
namespace {

struct BoundaryPrepared {
  kernels::QuantS8Params params;
  const kernels::Int8KernelTable* int8;
};

// Both ops: X and Y of the same size, one float and one int8 (X for Dequantize, Y for
// Quantize); the int8 side's scale and zero point parameterize the conversion.
Status PrepareBoundary(OpContext& ctx, bool int8_input) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(int8_input ? CheckS8Activation(ctx, x, "X")
                                      : CheckFloatTensor(ctx, x, "X"));
  EDGEFOLD_RETURN_IF_ERROR(int8_input ? CheckFloatTensor(ctx, y, "Y")
                                      : CheckS8Activation(ctx, y, "Y"));
  if (x.elems != y.elems)
    return ctx.Fail(Status::kShapeMismatch, "X has %zu elements, Y %zu", x.elems, y.elems);
  const TensorInfo& q = int8_input ? x : y;
  ctx.prepared<BoundaryPrepared>() =
      BoundaryPrepared{{q.scales[0], 1.0f / q.scales[0], q.zero_points[0]},
                       FamilyTable<kernels::Int8KernelTable>(ctx)};
  return Status::kOk;
}

Status PrepareQuantize(OpContext& ctx) { return PrepareBoundary(ctx, false); }

Status EvalQuantize(OpContext& ctx) {
  const BoundaryPrepared& p = ctx.prepared<BoundaryPrepared>();
  p.int8->quantize_s8(p.params, ctx.input(0).data, S8Data(ctx.output(0)), ctx.output(0).elems);
  return Status::kOk;
}

Status PrepareDequantize(OpContext& ctx) { return PrepareBoundary(ctx, true); }

Status EvalDequantize(OpContext& ctx) {
  const BoundaryPrepared& p = ctx.prepared<BoundaryPrepared>();
  p.int8->dequantize_s8(p.params, S8Data(ctx.input(0)), ctx.output(0).data, ctx.output(0).elems);
  return Status::kOk;
}

const OpKernel kQuantize = {PrepareQuantize, EvalQuantize, 1, 1};
const OpKernel kDequantize = {PrepareDequantize, EvalDequantize, 1, 1};

}  // namespace

const OpKernel* RegisterQuantize() { return &kQuantize; }
const OpKernel* RegisterDequantize() { return &kDequantize; }

}  // namespace edgefold::internal
