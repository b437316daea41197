// Reshape and Flatten: same elements, new shape (the output tensor's). A copy, because the
// planner gives input and output separate memory.
#include <cstring>

#include "ops/op_kernel.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  if (!ctx.has_input(0)) return ctx.Fail(Status::kInvalidModel, "needs an input");
  if (ctx.input(0).elems != ctx.output(0).elems)
    return ctx.Fail(Status::kShapeMismatch, "input has %zu elements, output %zu",
                    ctx.input(0).elems, ctx.output(0).elems);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  if (ctx.input(0).data != ctx.output(0).data)
    std::memcpy(ctx.output(0).data, ctx.input(0).data, ctx.output(0).elems * sizeof(float));
  return Status::kOk;
}

const OpKernel kReshape = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterReshape() { return &kReshape; }

}  // namespace edgefold::internal
