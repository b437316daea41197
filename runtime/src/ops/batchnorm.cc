// Inference BatchNormalization kept unfolded (--no-fold, or for training):
//   y = act(γ·(x − μ)/√(σ² + ε) + β) per channel. Inputs: X, γ, β, μ, σ².
#include <cmath>

#include "ops/channel_params.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  EDGEFOLD_RETURN_IF_ERROR(PrepareChannelOp(ctx, 1, 4));
  const ChannelPrepared& p = ctx.prepared<ChannelPrepared>();
  const float eps = ctx.op.options.batchnorm.epsilon;
  if (!ctx.input(4).is_constant)
    return ctx.Fail(Status::kInvalidModel, "variance '%s' must be a constant", ctx.input(4).name);
  const float* var = ctx.input(4).data;
  // Statistics are constants: check once here so Eval never divides by √(negative).
  for (size_t c = 0; c < p.channels; ++c) {
    if (!(var[c] + eps > 0.0f) || !std::isfinite(var[c]))
      return ctx.Fail(Status::kNumericError, "variance[%zu] = %g (+ epsilon %g) is not positive", c,
                      static_cast<double>(var[c]), static_cast<double>(eps));
  }
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const ChannelPrepared& p = ctx.prepared<ChannelPrepared>();
  const BatchNormOptions& o = ctx.op.options.batchnorm;
  const size_t image = p.channels * p.spatial;
  for (size_t n = 0; n < p.batch; ++n) {
    ctx.k.batchnorm_inference(ctx.input(0).data + n * image, ctx.input(1).data, ctx.input(2).data,
                              ctx.input(3).data, ctx.input(4).data, o.epsilon,
                              ctx.output(0).data + n * image, p.channels, p.spatial, o.act);
  }
  return Status::kOk;
}

const OpKernel kBatchNorm = CoreOp({Prepare, Eval, 5, 5});

}  // namespace

const OpKernel* RegisterBatchNorm() { return &kBatchNorm; }

}  // namespace edgefold::internal
