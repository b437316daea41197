// Transpose: y[i_0..i_{r-1}] = x[j] with j_{perm[d]} = i_d.
#include "ops/op_kernel.h"
#include "ops/strided_views.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const TransposeOptions& o = ctx.op.options.transpose;
  if (o.rank != x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "perm has %d axes, input rank %d, output rank %d", static_cast<int>(o.rank), x.rank, y.rank);
  bool seen[kMaxRank] = {};
  for (int d = 0; d < x.rank; ++d) {
    const int src = o.perm[d];
    if (src < 0 || src >= x.rank || seen[src]) return ctx.Fail(Status::kInvalidModel, "perm is not a permutation");
    seen[src] = true;
    if (y.shape[d] != x.shape[src]) return ctx.Fail(Status::kShapeMismatch, "output dim %d does not match input dim %d", d, static_cast<int>(src));
  }
  ctx.prepared<kernels::StridedCopyParams>() = TransposeCopy(x, y, o.perm);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  ctx.k.strided_copy(ctx.prepared<kernels::StridedCopyParams>(), ctx.input(0).data, ctx.output(0).data);
  return Status::kOk;
}

const OpKernel kTranspose = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterTranspose() { return &kTranspose; }

}  // namespace edgefold::internal
