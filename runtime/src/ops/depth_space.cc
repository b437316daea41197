// DepthToSpace and SpaceToDepth (blocksize b): a reshape, transpose and reshape, i.e. one 6-D
// strided copy (KernelTable::strided_copy) described in Prepare (DepthToSpaceCopy and
// SpaceToDepthCopy in ops/strided_views.h, which the backward passes reverse).
#include "ops/op_kernel.h"
#include "ops/strided_views.h"

namespace edgefold::internal {
namespace {

// x is the depth side [N, C·b², H, W], y the space side [N, C, H·b, W·b] (either direction).
Status CheckShapes(OpContext& ctx, const TensorInfo& depth, const TensorInfo& space, int32_t b) {
  if (depth.rank != 4 || space.rank != 4)
    return ctx.Fail(Status::kShapeMismatch, "needs rank-4 NCHW tensors, got ranks %d and %d",
                    depth.rank, space.rank);
  if (b < 1) return ctx.Fail(Status::kInvalidModel, "blocksize %d must be at least 1", b);
  // b² fits int64 for any int32 b; C·b² may not: compared by division.
  const int64_t bb = static_cast<int64_t>(b) * b;
  if (depth.shape[0] != space.shape[0] || depth.shape[1] % bb != 0 ||
      depth.shape[1] / bb != space.shape[1] ||
      static_cast<int64_t>(space.shape[2]) != static_cast<int64_t>(depth.shape[2]) * b ||
      static_cast<int64_t>(space.shape[3]) != static_cast<int64_t>(depth.shape[3]) * b)
    return ctx.Fail(Status::kShapeMismatch,
                    "blocksize %d: [%d, %d, %d, %d] and [%d, %d, %d, %d] do not match", b,
                    depth.shape[0], depth.shape[1], depth.shape[2], depth.shape[3], space.shape[0],
                    space.shape[1], space.shape[2], space.shape[3]);
  return Status::kOk;
}

Status PrepareDepthToSpace(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const DepthSpaceOptions& o = ctx.op.options.depth_space;
  EDGEFOLD_RETURN_IF_ERROR(CheckShapes(ctx, x, y, o.blocksize));
  ctx.prepared<kernels::StridedCopyParams>() = DepthToSpaceCopy(x, y, o.blocksize, o.crd);
  return Status::kOk;
}

Status PrepareSpaceToDepth(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const int32_t b = ctx.op.options.depth_space.blocksize;
  EDGEFOLD_RETURN_IF_ERROR(CheckShapes(ctx, y, x, b));
  ctx.prepared<kernels::StridedCopyParams>() = SpaceToDepthCopy(x, y, b);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  ctx.k.strided_copy(ctx.prepared<kernels::StridedCopyParams>(), ctx.input(0).data,
                     ctx.output(0).data);
  return Status::kOk;
}

const OpKernel kDepthToSpace = CoreOp({PrepareDepthToSpace, Eval, 1, 1});
const OpKernel kSpaceToDepth = CoreOp({PrepareSpaceToDepth, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterDepthToSpace() { return &kDepthToSpace; }
const OpKernel* RegisterSpaceToDepth() { return &kSpaceToDepth; }

}  // namespace edgefold::internal
