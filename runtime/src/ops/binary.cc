// Add, Sub, Mul, Div with numpy broadcasting and a fused activation: y = act(a op b).
#include "ops/broadcast.h"
#include "ops/op_kernel.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  if (ctx.op.num_inputs != 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Fail(Status::kInvalidModel, "needs two inputs");
  if (!PlanBroadcast(ctx.input(0), ctx.input(1), ctx.output(0), &ctx.prepared<BroadcastPlan>()))
    return ctx.Fail(Status::kShapeMismatch, "inputs '%s' and '%s' do not broadcast to the output",
                    ctx.input(0).name, ctx.input(1).name);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const BroadcastPlan& p = ctx.prepared<BroadcastPlan>();
  const float* a = ctx.input(0).data;
  const float* b = ctx.input(1).data;
  float* y = ctx.output(0).data;
  const auto kind = ctx.op.options.binary.kind;
  const auto act = ctx.op.options.binary.act;
  const auto& k = ctx.k;
  if (p.outer == 1) {  // one run (same shapes, or one side a scalar): threads take pieces of it
    const bool a_moves = p.inner_mode != kernels::BroadcastMode::kScalarA;
    const bool b_moves = p.inner_mode != kernels::BroadcastMode::kScalarB;
    ForEachRowRange(ctx.parallel, p.inner, kElementWork, 64, [&](size_t i0, size_t i1) {
      k.binary(kind, p.inner_mode, a + (a_moves ? i0 : 0), b + (b_moves ? i0 : 0), y + i0, i1 - i0,
               act);
    });
    return Status::kOk;
  }
  ForEachInnerRun(p, [&](size_t ao, size_t bo, size_t yo) {
    k.binary(kind, p.inner_mode, a + ao, b + bo, y + yo, p.inner, act);
  });
  return Status::kOk;
}

const OpKernel kBinary = CoreOp({Prepare, Eval, 2, 2});

}  // namespace

const OpKernel* RegisterBinary() { return &kBinary; }

}  // namespace edgefold::internal
