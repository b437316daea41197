// GlobalAveragePool / GlobalMaxPool: (N, C, spatial...) → (N, C, 1, ...).
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  if (x.rank < 2 || y.elems != DimProduct(x, 0, 2) || y.shape[0] != x.shape[0])
    return ctx.Fail(Status::kShapeMismatch, "Y must hold one value per (n, c) of X");
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const size_t planes = DimProduct(x, 0, 2), plane = DimProduct(x, 2, x.rank);
  float* y = ctx.output(0).data;
  // Threads take ranges of whole planes: each plane's sum runs in the same order whatever the
  // split (a squeeze-excitation's pool over 32 × 112² reads 1.6 MB).
  ForEachRowRange(ctx.parallel, planes, plane * kElementWork, 1, [&](size_t c0, size_t c1) {
    ctx.k.global_pool(ctx.op.options.global_pool, x.data + c0 * plane, y + c0, c1 - c0, plane);
  });
  return Status::kOk;
}

const OpKernel kGlobalPool = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterGlobalPool() { return &kGlobalPool; }

}  // namespace edgefold::internal
