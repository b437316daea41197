// Expand: numpy broadcast of x to y's shape. x's dims align with y's last ones and each is
// 1 (repeated: source step 0) or equal; y's extra leading dims repeat all of x.
#include "ops/op_kernel.h"
#include "ops/strided_views.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  if (x.rank > y.rank)
    return ctx.Fail(Status::kShapeMismatch, "input rank %d is above output rank %d", x.rank,
                    y.rank);
  size_t x_stride[kMaxRank];
  RowMajorStrides(x, x_stride);
  ptrdiff_t step[kMaxRank] = {};
  const int lead = y.rank - x.rank;
  for (int d = 0; d < x.rank; ++d) {
    if (x.shape[d] != 1 && x.shape[d] != y.shape[lead + d])
      return ctx.Fail(Status::kShapeMismatch,
                      "input dim %d (%d) does not broadcast to output dim %d (%d)", d, x.shape[d],
                      lead + d, y.shape[lead + d]);
    step[lead + d] = x.shape[d] == 1 ? 0 : static_cast<ptrdiff_t>(x_stride[d]);
  }
  ctx.prepared<kernels::StridedCopyParams>() = GatherInto(y, step);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  ctx.k.strided_copy(ctx.prepared<kernels::StridedCopyParams>(), ctx.input(0).data,
                     ctx.output(0).data);
  return Status::kOk;
}

const OpKernel kExpand = CoreOp({Prepare, Eval, 1, 1});

}  // namespace

const OpKernel* RegisterExpand() { return &kExpand; }

}  // namespace edgefold::internal
