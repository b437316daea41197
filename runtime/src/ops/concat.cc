// Concat along `axis`: each input contributes a block of dim_axis(i)·inner elements per outer index.
#include <cstring>

#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct ConcatPrepared {
  size_t outer;   // product of dims before axis
  size_t inner;   // product of dims after axis
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& y = ctx.output(0);
  const int axis = ctx.op.options.axis.axis;
  if (axis < 0 || axis >= y.rank) return ctx.Fail(Status::kInvalidModel, "axis %d out of range", axis);
  if (ctx.op.num_inputs == 0) return ctx.Fail(Status::kInvalidModel, "needs at least one input");
  long total = 0;
  for (uint32_t i = 0; i < ctx.op.num_inputs; ++i) {
    if (!ctx.has_input(i)) return ctx.Fail(Status::kInvalidModel, "input %u is missing", i);
    const TensorInfo& x = ctx.input(i);
    if (x.rank != y.rank) return ctx.Fail(Status::kShapeMismatch, "input '%s' has rank %d, output %d", x.name, x.rank, y.rank);
    for (int d = 0; d < y.rank; ++d)
      if (d != axis && x.shape[d] != y.shape[d])
        return ctx.Fail(Status::kShapeMismatch, "input '%s' differs from the output in dim %d", x.name, d);
    total += x.shape[axis];
  }
  if (total != y.shape[axis])
    return ctx.Fail(Status::kShapeMismatch, "inputs add up to %ld along axis %d, output has %d", total, axis, static_cast<int>(y.shape[axis]));
  ctx.prepared<ConcatPrepared>() = ConcatPrepared{DimProduct(y, 0, axis), DimProduct(y, axis + 1, y.rank)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const ConcatPrepared& p = ctx.prepared<ConcatPrepared>();
  const int axis = ctx.op.options.axis.axis;
  const TensorInfo& y = ctx.output(0);
  const size_t out_block = static_cast<size_t>(y.shape[axis]) * p.inner;
  size_t offset = 0;
  for (uint32_t i = 0; i < ctx.op.num_inputs; ++i) {
    const TensorInfo& x = ctx.input(i);
    const size_t block = static_cast<size_t>(x.shape[axis]) * p.inner;
    for (size_t o = 0; o < p.outer; ++o)
      std::memcpy(y.data + o * out_block + offset, x.data + o * block, block * sizeof(float));
    offset += block;
  }
  return Status::kOk;
}

const OpKernel kConcat = {Prepare, Eval, 1, kAnyInputs};

}  // namespace

const OpKernel* RegisterConcat() { return &kConcat; }

}  // namespace edgefold::internal
