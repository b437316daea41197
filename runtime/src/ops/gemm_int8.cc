// GemmInt8 (fully connected): X int8 [M, K], W int8 [N, K] (one row per output channel), B,
// M, shift int32 [N]:  y[i, j] = requantize_j(B[j] + Σ_k W[j, k]·x[i, k]).
// Each row of X is one int8 GEMM of W against X's row as a column (a dot product per output).
#include "kernels/int8_kernel_table.h"
#include "ops/family_table.h"
#include "ops/int8_operands.h"

namespace edgefold::internal {
namespace {

struct GemmInt8Prepared {
  size_t rows, k, n;
  const kernels::Int8KernelTable* int8;
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Activation(ctx, x, "X"));
  EDGEFOLD_RETURN_IF_ERROR(CheckS8Activation(ctx, y, "Y"));
  if (w.dtype != DType::kInt8 || !w.is_constant || w.rank != 2)
    return ctx.Fail(Status::kInvalidModel, "W '%s' must be a rank-2 int8 constant", w.name);
  if (x.rank != 2 || y.rank != 2 || x.shape[1] != w.shape[1] || y.shape[0] != x.shape[0] ||
      y.shape[1] != w.shape[0])
    return ctx.Fail(Status::kShapeMismatch, "X [M, K], W [N, K] and Y [M, N] do not agree");
  const size_t k = static_cast<size_t>(w.shape[1]), n = static_cast<size_t>(w.shape[0]);
  if (k > kernels::kMaxGemmS8K)
    return ctx.Fail(Status::kInvalidModel, "K = %zu exceeds the int32 accumulator's range", k);
  EDGEFOLD_RETURN_IF_ERROR(CheckRequantOperands(ctx, 2, n));
  ctx.prepared<GemmInt8Prepared>() = GemmInt8Prepared{static_cast<size_t>(x.shape[0]), k, n,
                                                      FamilyTable<kernels::Int8KernelTable>(ctx)};
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const GemmInt8Prepared& pr = ctx.prepared<GemmInt8Prepared>();
  kernels::GemmS8Params p;
  p.m = pr.n;
  p.n = 1;
  p.k = pr.k;
  p.lda = pr.k;
  p.ldb = 1;
  p.ldy = 1;
  SetRequant(ctx, 2, 0, ctx.op.options.int8.act_min, ctx.op.options.int8.act_max, &p);
  const int8_t* x = S8Data(ctx.input(0));
  int8_t* y = S8Data(ctx.output(0));
  for (size_t i = 0; i < pr.rows; ++i)
    pr.int8->gemm_s8(p, S8Data(ctx.input(1)), x + i * pr.k, y + i * pr.n);
  return Status::kOk;
}

const OpKernel kGemmInt8 = {Prepare, Eval, 5, 5};

}  // namespace

const OpKernel* RegisterGemmInt8() { return &kGemmInt8; }

}  // namespace edgefold::internal
