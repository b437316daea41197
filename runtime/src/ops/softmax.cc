// Softmax along one axis: y = exp(x − max) / Σ exp(x − max), x viewed as [outer, axis, inner].
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct SoftmaxPrepared {
  size_t outer, axis_len, inner;
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!SameShape(x, ctx.output(0)))
    return ctx.Fail(Status::kShapeMismatch, "output shape differs from input");
  int axis = ctx.op.options.axis.axis;
  if (axis < 0) axis += x.rank;
  if (axis < 0 || axis >= x.rank)
    return ctx.Fail(Status::kInvalidModel, "axis out of range for rank %d", x.rank);
  ctx.prepared<SoftmaxPrepared>() = SoftmaxPrepared{
      DimProduct(x, 0, axis), static_cast<size_t>(x.shape[axis]), DimProduct(x, axis + 1, x.rank)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const SoftmaxPrepared& p = ctx.prepared<SoftmaxPrepared>();
  ctx.k.softmax(ctx.input(0).data, ctx.output(0).data, p.outer, p.axis_len, p.inner);
  return Status::kOk;
}

const OpKernel kSoftmax = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterSoftmax() { return &kSoftmax; }

}  // namespace edgefold::internal
