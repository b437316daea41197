// Concat along `axis`: each input contributes a block of dim_axis(i)·inner elements per outer index.
// With one outer block an input may be planned inside the output (its producer writes it in
// place; the model reader accepts only that exact overlap): that block is not copied.
// float32 or int8; an int8 Concat copies bytes, so its inputs carry the output's scale and zero
// point (the compiler gives them one range, or requantizes an input with a LutInt8 first).
#include <cstring>

#include "ops/int8_operands.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct ConcatPrepared {
  size_t outer;  // product of dims before axis
  size_t inner;  // product of dims after axis
  size_t elem_bytes;
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& y = ctx.output(0);
  const int axis = ctx.op.options.axis.axis;
  if (axis < 0 || axis >= y.rank)
    return ctx.Fail(Status::kInvalidModel, "axis %d out of range", axis);
  if (ctx.op.num_inputs == 0) return ctx.Fail(Status::kInvalidModel, "needs at least one input");
  long total = 0;
  for (uint32_t i = 0; i < ctx.op.num_inputs; ++i) {
    if (!ctx.has_input(i)) return ctx.Fail(Status::kInvalidModel, "input %u is missing", i);
    const TensorInfo& x = ctx.input(i);
    if (x.rank != y.rank)
      return ctx.Fail(Status::kShapeMismatch, "input '%s' has rank %d, output %d", x.name, x.rank,
                      y.rank);
    EDGEFOLD_RETURN_IF_ERROR(CheckCopyDtypes(ctx, x, y));
    for (int d = 0; d < y.rank; ++d)
      if (d != axis && x.shape[d] != y.shape[d])
        return ctx.Fail(Status::kShapeMismatch, "input '%s' differs from the output in dim %d",
                        x.name, d);
    total += x.shape[axis];
  }
  if (total != y.shape[axis])
    return ctx.Fail(Status::kShapeMismatch, "inputs add up to %ld along axis %d, output has %d",
                    total, axis, static_cast<int>(y.shape[axis]));
  ctx.prepared<ConcatPrepared>() =
      ConcatPrepared{DimProduct(y, 0, axis), DimProduct(y, axis + 1, y.rank),
                     y.dtype == DType::kInt8 ? 1 : sizeof(float)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const ConcatPrepared& p = ctx.prepared<ConcatPrepared>();
  const int axis = ctx.op.options.axis.axis;
  const TensorInfo& y = ctx.output(0);
  // In bytes: the same copy for every dtype.
  const size_t out_block = static_cast<size_t>(y.shape[axis]) * p.inner * p.elem_bytes;
  auto* out = reinterpret_cast<uint8_t*>(y.data);
  size_t offset = 0;
  for (uint32_t i = 0; i < ctx.op.num_inputs; ++i) {
    const TensorInfo& x = ctx.input(i);
    const size_t block = static_cast<size_t>(x.shape[axis]) * p.inner * p.elem_bytes;
    const auto* in = reinterpret_cast<const uint8_t*>(x.data);
    // An input the compiler planned in its block of the output: its producer wrote it there.
    if (p.outer == 1 && in == out + offset) {
      offset += block;
      continue;
    }
    for (size_t o = 0; o < p.outer; ++o)
      std::memcpy(out + o * out_block + offset, in + o * block, block);
    offset += block;
  }
  return Status::kOk;
}

const OpKernel kConcat = {Prepare, Eval, 1, kAnyInputs};

}  // namespace

const OpKernel* RegisterConcat() { return &kConcat; }

}  // namespace edgefold::internal
