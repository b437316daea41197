// AddInt8: A + B of two int8 activations of the same shape, each rescaled to Y's scale:
//   y = clamp(zp_y + RoundShift((a − zp_a)·ma + (b − zp_b)·mb, shift), act_min, act_max)
// with ma/2^shift = s_a/s_y, mb/2^shift = s_b/s_y (the compiler's choice, in the options).
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct AddInt8Prepared {
  kernels::AddS8Params params;
  const kernels::Int8KernelTable* int8;
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Elementwise(ctx, {"A", "B"}));
  if (!SameShape(a, y) || !SameShape(b, y))
    return ctx.Fail(Status::kShapeMismatch,
                    "A, B and Y must have the same shape (no broadcasting in int8)");
  const auto& o = ctx.op.options.int8;
  kernels::AddS8Params p;
  p.a_zero_point = a.zero_points[0];
  p.b_zero_point = b.zero_points[0];
  p.y_zero_point = y.zero_points[0];
  p.multiplier_a = o.multiplier_a;
  p.multiplier_b = o.multiplier_b;
  p.shift = o.shift;
  p.act_min = o.act_min;
  p.act_max = o.act_max;
  ctx.prepared<AddInt8Prepared>() = AddInt8Prepared{p, FamilyTable<kernels::Int8KernelTable>(ctx)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const AddInt8Prepared& p = ctx.prepared<AddInt8Prepared>();
  p.int8->add_s8(p.params, S8Data(ctx.input(0)), S8Data(ctx.input(1)), S8Data(ctx.output(0)),
                 ctx.output(0).elems);
  return Status::kOk;
}

const OpKernel kAddInt8 = {Prepare, Eval, 2, 2};

}  // namespace

const OpKernel* RegisterAddInt8() { return &kAddInt8; }

}  // namespace edgefold::internal
