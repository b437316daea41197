// MulInt8: A · B of two int8 activations, B of A's shape or one value per (n, c) of A
// [N, C, …] (the squeeze-excitation's channel scale):
//   y = clamp(zp_y + RoundShift((a − zp_a)·(b − zp_b)·M, 31 + shift), act_min, act_max)
// with M·2^−(31+shift) = s_a·s_b/s_y — RequantizeS8 on the product, which fits int32.
#include "ops/int8_operands.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct MulInt8Prepared {
  size_t outer;  // products of B's values: 1 (same shape) or N·C
  size_t inner;  // elements of A per value of B
  int32_t a_zero_point, b_zero_point;
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Elementwise(ctx, {"A", "B"}));
  if (!SameShape(a, y)) return ctx.Fail(Status::kShapeMismatch, "A and Y must have the same shape");
  MulInt8Prepared p{1, a.elems, a.zero_points[0], b.zero_points[0]};
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
  const auto& o = ctx.op.options.int8;
  const int32_t zp_y = ctx.output(0).zero_points[0];
  const int8_t* a = S8Data(ctx.input(0));
  const int8_t* b = S8Data(ctx.input(1));
  int8_t* y = S8Data(ctx.output(0));
  for (size_t i = 0; i < p.outer; ++i) {
    const int32_t bv = int32_t{b[i]} - p.b_zero_point;
    const size_t base = i * p.inner;
    for (size_t j = 0; j < p.inner; ++j)
      y[base + j] = kernels::RequantizeS8((int32_t{a[base + j]} - p.a_zero_point) * bv,
                                          o.multiplier_a, o.shift, zp_y, o.act_min, o.act_max);
  }
  return Status::kOk;
}

const OpKernel kMulInt8 = {Prepare, Eval, 2, 2};

}  // namespace

const OpKernel* RegisterMulInt8() { return &kMulInt8; }

}  // namespace edgefold::internal
