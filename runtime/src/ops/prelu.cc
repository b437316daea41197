// PRelu: y = x ≥ 0 ? x : slope·x, slope broadcast to x (numpy rules).
// Shared slope and per-channel slope (shape [C] or [C,1,...] on (N,C,...)) use the kernel;
// any other broadcast runs a plain loop over the broadcast plan.
#include "ops/broadcast.h"
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

enum class SlopeMode : uint8_t { kShared, kPerChannel, kGeneral };

struct PReluPrepared {
  SlopeMode mode;
  size_t batch, channels, spatial;
  BroadcastPlan plan;
};

bool IsPerChannel(const TensorInfo& x, const TensorInfo& slope) {
  if (x.rank < 2 || slope.elems != static_cast<size_t>(x.shape[1]) || slope.rank > x.rank - 1)
    return false;
  // The slope's non-unit dim must line up with axis 1 when right-aligned to x.
  for (int i = 0; i < slope.rank; ++i) {
    const int xi = i + (x.rank - slope.rank);
    if (slope.shape[i] != 1 && xi != 1) return false;
  }
  return true;
}

Status Prepare(OpContext& ctx) {
  if (ctx.op.num_inputs != 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Fail(Status::kInvalidModel, "needs inputs X and slope");
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& slope = ctx.input(1);
  if (!SameShape(x, ctx.output(0)))
    return ctx.Fail(Status::kShapeMismatch, "output shape differs from input shape");
  PReluPrepared& p = ctx.prepared<PReluPrepared>();
  p.batch = (x.rank >= 2) ? static_cast<size_t>(x.shape[0]) : 1;
  p.channels = (x.rank >= 2) ? static_cast<size_t>(x.shape[1]) : 1;
  p.spatial = DimProduct(x, 2, x.rank);
  if (slope.elems == 1) {
    p.mode = SlopeMode::kShared;
  } else if (IsPerChannel(x, slope)) {
    p.mode = SlopeMode::kPerChannel;
  } else {
    p.mode = SlopeMode::kGeneral;
    if (!PlanBroadcast(x, slope, x, &p.plan))
      return ctx.Fail(Status::kShapeMismatch, "slope '%s' does not broadcast to X", slope.name);
  }
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const PReluPrepared& p = ctx.prepared<PReluPrepared>();
  const float* x = ctx.input(0).data;
  const float* slope = ctx.input(1).data;
  float* y = ctx.output(0).data;
  if (p.mode == SlopeMode::kShared) {
    ctx.k.prelu(x, slope, y, 1, ctx.input(0).elems, false);
  } else if (p.mode == SlopeMode::kPerChannel) {
    const size_t image = p.channels * p.spatial;
    for (size_t n = 0; n < p.batch; ++n)
      ctx.k.prelu(x + n * image, slope, y + n * image, p.channels, p.spatial, true);
  } else {
    const BroadcastPlan& bp = p.plan;
    ForEachInnerRun(bp, [&](size_t xo, size_t so, size_t yo) {
      const size_t step = (bp.inner_mode == kernels::BroadcastMode::kScalarB) ? 0 : 1;
      for (size_t i = 0; i < bp.inner; ++i) {
        const float v = x[xo + i];
        y[yo + i] = v >= 0.0f ? v : slope[so + i * step] * v;
      }
    });
  }
  return Status::kOk;
}

const OpKernel kPRelu = CoreOp({Prepare, Eval, 2, 2});

}  // namespace

const OpKernel* RegisterPRelu() { return &kPRelu; }

}  // namespace edgefold::internal
