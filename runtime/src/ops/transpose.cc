// Transpose: y[i_0..i_{r-1}] = x[j] with j_{perm[d]} = i_d. float32 or int8 (a byte copy).
#include "kernels/reference.h"
#include "ops/int8_operands.h"
#include "ops/strided_views.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const TransposeOptions& o = ctx.op.options.transpose;
  EDGEFOLD_RETURN_IF_ERROR(CheckCopyDtypes(ctx, x, y));
  if (o.rank != x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "perm has %d axes, input rank %d, output rank %d",
                    static_cast<int>(o.rank), x.rank, y.rank);
  bool seen[kMaxRank] = {};
  for (int d = 0; d < x.rank; ++d) {
    const int src = o.perm[d];
    if (src < 0 || src >= x.rank || seen[src])
      return ctx.Fail(Status::kInvalidModel, "perm is not a permutation");
    seen[src] = true;
    if (y.shape[d] != x.shape[src])
      return ctx.Fail(Status::kShapeMismatch, "output dim %d does not match input dim %d", d,
                      static_cast<int>(src));
  }
  ctx.prepared<kernels::StridedCopyParams>() = TransposeCopy(x, y, o.perm);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const kernels::StridedCopyParams& p = ctx.prepared<kernels::StridedCopyParams>();
  if (ctx.output(0).dtype == DType::kInt8)
    kernels::ref::StridedCopyS8(p, S8Data(ctx.input(0)), S8Data(ctx.output(0)));
  else
    ctx.k.strided_copy(p, ctx.input(0).data, ctx.output(0).data);
  return Status::kOk;
}

const OpKernel kTranspose = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterTranspose() { return &kTranspose; }

}  // namespace edgefold::internal
