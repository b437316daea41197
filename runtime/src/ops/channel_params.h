// Shared Prepare logic for per-channel ops over axis 1 of an (N, C, ...) tensor.
#pragma once
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {

struct ChannelPrepared {
  size_t batch;
  size_t channels;
  size_t spatial;  // product of dims after the channel axis (1 for (N, C))
};

// Checks Y has X's shape (rank ≥ 2) and every input in [first_param, first_param+count)
// holds exactly C values; fills ChannelPrepared.
inline Status PrepareChannelOp(OpContext& ctx, uint32_t first_param, uint32_t count) {
  if (ctx.op.num_inputs != first_param + count)
    return ctx.Fail(Status::kInvalidModel, "expects %u inputs, has %u", first_param + count,
                    ctx.op.num_inputs);
  for (uint32_t i = 0; i < ctx.op.num_inputs; ++i)
    if (!ctx.has_input(i)) return ctx.Fail(Status::kInvalidModel, "input %u is missing", i);
  const TensorInfo& x = ctx.input(0);
  if (x.rank < 2 || !SameShape(x, ctx.output(0)))
    return ctx.Fail(Status::kShapeMismatch, "X must be rank >= 2 and Y must have X's shape");
  ChannelPrepared& p = ctx.prepared<ChannelPrepared>();
  p.batch = static_cast<size_t>(x.shape[0]);
  p.channels = static_cast<size_t>(x.shape[1]);
  p.spatial = DimProduct(x, 2, x.rank);
  for (uint32_t i = first_param; i < first_param + count; ++i)
    if (ctx.input(i).elems != p.channels)
      return ctx.Fail(Status::kShapeMismatch, "parameter '%s' has %zu values for %zu channels",
                      ctx.input(i).name, ctx.input(i).elems, p.channels);
  return Status::kOk;
}

}  // namespace edgefold::internal
