// Stand-alone element-wise activation (one that had no producer to fuse into).
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  if (ctx.op.num_inputs != 1 || !ctx.has_input(0))
    return ctx.Fail(Status::kInvalidModel, "needs one input");
  if (!SameShape(ctx.input(0), ctx.output(0)))
    return ctx.Fail(Status::kShapeMismatch, "output shape differs from input shape");
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const float* x = ctx.input(0).data;
  float* y = ctx.output(0).data;
  // Sigmoid/Tanh/Erf cost tens of operations per value; the cheap ones still split when large.
  ForEachRowRange(
      ctx.parallel, ctx.output(0).elems, 4 * kElementWork, 64,
      [&](size_t i0, size_t i1) { ctx.k.activation(x + i0, y + i0, i1 - i0, ctx.op.options.act); });
  return Status::kOk;
}

const OpKernel kActivation = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterActivation() { return &kActivation; }

}  // namespace edgefold::internal
