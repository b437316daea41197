// y = act(x·scale[c] + shift[c]) over channel axis 1: a BatchNorm with nothing to fold into.
#include "ops/channel_params.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) { return PrepareChannelOp(ctx, 1, 2); }

Status Eval(OpContext& ctx) {
  const ChannelPrepared& p = ctx.prepared<ChannelPrepared>();
  const size_t image = p.channels * p.spatial;
  for (size_t n = 0; n < p.batch; ++n) {
    ctx.k.channel_affine(ctx.input(0).data + n * image, ctx.input(1).data, ctx.input(2).data,
                         ctx.output(0).data + n * image, p.channels, p.spatial, ctx.op.options.act);
  }
  return Status::kOk;
}

const OpKernel kChannelAffine = CoreOp({Prepare, Eval, 3, 3});

}  // namespace

const OpKernel* RegisterChannelAffine() { return &kChannelAffine; }

}  // namespace edgefold::internal
