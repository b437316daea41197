// SoftmaxInt8: softmax over the last axis of an int8 tensor (schema SoftmaxInt8Options,
// kernels/ref/softmax_s8.h). X has one scale and zero point; Y has X's shape, scale 1/256 and
// zero point −128; input 1 is the exp table T[k] = round(2^20·exp(−k·s_x)), k = 0..255, an
// int32 constant the compiler wrote. Prepare checks T's shape of a table (T[0] = 2^20,
// non-increasing, ≥ 0), which bounds every row sum, so the kernel needs no checks of its own.
#include "kernels/ref/softmax_s8.h"
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct SoftmaxInt8Prepared {
  size_t rows, classes;
  const kernels::Int8KernelTable* int8;
};

Status CheckTable(OpContext& ctx, const TensorInfo& t) {
  if (t.dtype != DType::kInt32 || !t.is_constant || t.elems != kernels::kSoftmaxS8TableElems)
    return ctx.Fail(Status::kInvalidModel, "exp table '%s' must be an int32 constant of 256 values",
                    t.name);
  const int32_t* v = S32Data(t);
  if (v[0] != kernels::kSoftmaxS8TableOne)
    return ctx.Fail(Status::kInvalidModel, "exp table '%s' must start at 2^20 (found %d)", t.name,
                    static_cast<int>(v[0]));
  for (size_t k = 1; k < kernels::kSoftmaxS8TableElems; ++k)
    if (v[k] < 0 || v[k] > v[k - 1])
      return ctx.Fail(Status::kInvalidModel,
                      "exp table '%s': entry %zu (%d) is not in [0, entry %zu]", t.name, k,
                      static_cast<int>(v[k]), k - 1);
  return Status::kOk;
}

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Elementwise(ctx, {"X"}));
  if (y.scales[0] != kernels::kSoftmaxS8OutputScale ||
      y.zero_points[0] != kernels::kSoftmaxS8OutputZeroPoint)
    return ctx.Fail(Status::kInvalidModel,
                    "Y '%s' has scale %g and zero point %d; softmax outputs need 1/256 and -128",
                    y.name, static_cast<double>(y.scales[0]), static_cast<int>(y.zero_points[0]));
  if (!SameShape(x, y) || x.rank < 1)
    return ctx.Fail(Status::kShapeMismatch, "X and Y must have the same shape, rank >= 1");
  EDGEFOLD_RETURN_IF_ERROR(CheckTable(ctx, ctx.input(1)));
  const size_t classes = static_cast<size_t>(x.shape[x.rank - 1]);
  ctx.prepared<SoftmaxInt8Prepared>() = SoftmaxInt8Prepared{
      classes != 0 ? x.elems / classes : 0, classes, FamilyTable<kernels::Int8KernelTable>(ctx)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const SoftmaxInt8Prepared& p = ctx.prepared<SoftmaxInt8Prepared>();
  p.int8->softmax_s8(S32Data(ctx.input(1)), S8Data(ctx.input(0)), S8Data(ctx.output(0)), p.rows,
                     p.classes);
  return Status::kOk;
}

const OpKernel kSoftmaxInt8 = {Prepare, Eval, 2, 2};

}  // namespace

const OpKernel* RegisterSoftmaxInt8() { return &kSoftmaxInt8; }

}  // namespace edgefold::internal
