// MulInt8: A · B of two int8 activations, B of A's shape or one value per (n, c) of A
// [N, C, …] (the squeeze-excitation's channel scale):
//   y = clamp(zp_y + RoundShift((a − zp_a)·(b − zp_b)·M, 31 + shift), act_min, act_max)
// with M·2^−(31+shift) = s_a·s_b/s_y — RequantizeS8 on the product, which fits int32.
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct MulInt8Prepared {
  size_t outer;  // B's values: A's count (same shape) or N·C
  size_t inner;  // elements of A per value of B
  kernels::MulS8Params params;
  const kernels::Int8KernelTable* int8;
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Elementwise(ctx, {"A", "B"}));
  if (!SameShape(a, y)) return ctx.Fail(Status::kShapeMismatch, "A and Y must have the same shape");
  const auto& o = ctx.op.options.int8;
  MulInt8Prepared p{1, a.elems, {}, FamilyTable<kernels::Int8KernelTable>(ctx)};
  p.params.a_zero_point = a.zero_points[0];
  p.params.b_zero_point = b.zero_points[0];
  p.params.y_zero_point = y.zero_points[0];
  p.params.multiplier = o.multiplier_a;
  p.params.shift = o.shift;
  p.params.act_min = o.act_min;
  p.params.act_max = o.act_max;
  if (SameShape(b, y)) {
    p.outer = a.elems;
    p.inner = 1;
  } else {
    // B = [N, C, 1, …] against A = [N, C, …]: one value per (n, c).
    bool per_channel =
        a.rank >= 2 && b.rank == a.rank && b.shape[0] == a.shape[0] && b.shape[1] == a.shape[1];
    for (int d = 2; per_channel && d < b.rank; ++d) per_channel = b.shape[d] == 1;
    if (!per_channel)
      return ctx.Fail(Status::kShapeMismatch,
                      "B must have A's shape or be one value per (n, c) of A");
    p.outer = b.elems;
    p.inner = a.elems / b.elems;
  }
  ctx.prepared<MulInt8Prepared>() = p;
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const MulInt8Prepared& p = ctx.prepared<MulInt8Prepared>();
  const int8_t* a = S8Data(ctx.input(0));
  const int8_t* b = S8Data(ctx.input(1));
  int8_t* y = S8Data(ctx.output(0));
  p.int8->mul_s8_rows(p.params, a, b, y, p.outer, p.inner);  // same shapes: rows of one
  return Status::kOk;
}

const OpKernel kMulInt8 = {Prepare, Eval, 2, 2};

}  // namespace

const OpKernel* RegisterMulInt8() { return &kMulInt8; }

}  // namespace edgefold::internal
