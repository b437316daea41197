// ReduceMean/Sum/Max/SumSquare over the consecutive dims [axis, axis + count) of X: x viewed as
// [outer, len, inner], Y holds outer·inner values, its shape X's with those dims 1 (keepdims) or
// dropped. The compiler turns other axis sets into a chain of these.
#include "kernels/sequence_kernel_table.h"
#include "ops/family_table.h"
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct ReducePrepared {
  size_t outer, len, inner;
  const kernels::SequenceKernelTable* sequence;
};

// Y's shape is X's with dims [axis, end) all 1 (keepdims) or removed.
bool OutputShapeFits(const TensorInfo& x, const TensorInfo& y, int axis, int end) {
  const bool keep = y.rank == x.rank;
  if (!keep && y.rank != x.rank - (end - axis)) return false;
  for (int d = 0, yd = 0; d < x.rank; ++d) {
    const bool reduced = d >= axis && d < end;
    if (reduced && !keep) continue;
    if (y.shape[yd++] != (reduced ? 1 : x.shape[d])) return false;
  }
  return true;
}

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int axis = ctx.op.options.reduce.axis, end = axis + ctx.op.options.reduce.count;
  if (end > x.rank)
    return ctx.Fail(Status::kInvalidModel, "reduced dims [%d, %d) exceed rank %d", axis, end,
                    x.rank);
  if (!OutputShapeFits(x, ctx.output(0), axis, end))
    return ctx.Fail(Status::kShapeMismatch,
                    "output shape is not the input's with dims [%d, %d) reduced", axis, end);
  ctx.prepared<ReducePrepared>() =
      ReducePrepared{DimProduct(x, 0, axis), DimProduct(x, axis, end), DimProduct(x, end, x.rank),
                     FamilyTable<kernels::SequenceKernelTable>(ctx)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const ReducePrepared& p = ctx.prepared<ReducePrepared>();
  p.sequence->reduce(ctx.op.options.reduce.kind, ctx.input(0).data, ctx.output(0).data, p.outer,
                     p.len, p.inner);
  return Status::kOk;
}

const OpKernel kReduce = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterReduce() { return &kReduce; }

}  // namespace edgefold::internal
