// Reshape and Flatten: same elements, new shape (the output tensor's). The compiler plans the
// output on the input's bytes (a view) unless one of them is a graph input or output (or the
// model trains); otherwise a copy. Any dtype: input and output share it (and, for int8, the
// scale and zero point).
#include <cstring>

#include "ops/int8_operands.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  if (!ctx.has_input(0)) return ctx.Fail(Status::kInvalidModel, "needs an input");
  if (ctx.input(0).elems != ctx.output(0).elems)
    return ctx.Fail(Status::kShapeMismatch, "input has %zu elements, output %zu",
                    ctx.input(0).elems, ctx.output(0).elems);
  return CheckCopyDtypes(ctx, ctx.input(0), ctx.output(0));
}

Status Eval(OpContext& ctx) {
  if (ctx.input(0).data != ctx.output(0).data)
    std::memcpy(ctx.output(0).data, ctx.input(0).data,
                ctx.output(0).elems * (ctx.output(0).dtype == DType::kInt8 ? 1 : sizeof(float)));
  return Status::kOk;
}

const OpKernel kReshape = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterReshape() { return &kReshape; }

}  // namespace edgefold::internal
