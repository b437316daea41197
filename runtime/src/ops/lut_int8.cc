// LutInt8: Y[i] = T[X[i] + 128] — an elementwise activation of an int8 tensor as a table of its
// 256 possible results. T is an int8 constant of 256 values in Y's quantization, filled by the
// compiler (hard-swish, sigmoid, SiLU, tanh, GELU, … of every dequantized input, rounded as
// Quantize rounds), so the op is exact by construction and costs one load per element.
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& t = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Elementwise(ctx, {"X"}));
  if (t.dtype != DType::kInt8 || !t.is_constant || t.elems != 256)
    return ctx.Fail(Status::kInvalidModel, "table '%s' must be an int8 constant of 256 values",
                    t.name);
  if (x.elems != y.elems)
    return ctx.Fail(Status::kShapeMismatch, "X and Y must have as many elements");
  ctx.prepared<const kernels::Int8KernelTable*>() = FamilyTable<kernels::Int8KernelTable>(ctx);
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const int8_t* x = S8Data(ctx.input(0));
  const int8_t* table = S8Data(ctx.input(1));
  int8_t* y = S8Data(ctx.output(0));
  const size_t n = ctx.output(0).elems;
  const kernels::Int8KernelTable* int8 = ctx.prepared<const kernels::Int8KernelTable*>();
  if (int8->lut_s8 != nullptr) {
    int8->lut_s8(table, x, y, n);
    return Status::kOk;
  }
  for (size_t i = 0; i < n; ++i)
    y[i] = table[static_cast<uint8_t>(x[i] ^ 0x80)];  // x + 128 ∈ [0, 256)
  return Status::kOk;
}

const OpKernel kLutInt8 = {Prepare, Eval, 2, 2};

}  // namespace

const OpKernel* RegisterLutInt8() { return &kLutInt8; }

}  // namespace edgefold::internal
