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
  ctx.k.activation(ctx.input(0).data, ctx.output(0).data, ctx.output(0).elems, ctx.op.options.act);
  return Status::kOk;
}

const OpKernel kActivation = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterActivation() { return &kActivation; }

}  // namespace edgefold::internal
