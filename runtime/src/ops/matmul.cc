// Batched matrix product of two tensors with numpy broadcasting of the batch dims:
//   Y[..., M, N] = A[..., M, K] · B[..., K, N]   (rank ≥ 2; 1-D operands are reshaped by the compiler)
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

struct MatMulPrepared {
  kernels::GemmParams gemm;
  int batch_rank;             // number of batch dims of Y
  int32_t batch[kMaxRank];    // Y's batch dims
  size_t a_stride[kMaxRank];  // elements per batch step, 0 where broadcast
  size_t b_stride[kMaxRank];
  size_t batches;
};

// Strides of `t`'s batch dims aligned right against Y's `batch_rank` dims.
bool BatchStrides(const TensorInfo& t, const int32_t* batch, int batch_rank, size_t matrix_elems,
                  size_t* stride) {
  const int t_batch = t.rank - 2;
  size_t step = matrix_elems;
  for (int i = batch_rank - 1; i >= 0; --i) {
    const int ti = i - (batch_rank - t_batch);
    const int32_t d = (ti >= 0) ? t.shape[ti] : 1;
    if (d != batch[i] && d != 1) return false;
    stride[i] = (d == 1) ? 0 : step;
    step *= static_cast<size_t>(d);
  }
  return true;
}

Status Prepare(OpContext& ctx) {
  if (ctx.op.num_inputs != 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Fail(Status::kInvalidModel, "needs inputs A and B");
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  if (a.rank < 2 || b.rank < 2 || y.rank < 2)
    return ctx.Fail(Status::kShapeMismatch, "operands must be at least rank 2");
  MatMulPrepared& p = ctx.prepared<MatMulPrepared>();
  p = MatMulPrepared();
  const size_t m = static_cast<size_t>(a.shape[a.rank - 2]),
               k = static_cast<size_t>(a.shape[a.rank - 1]);
  const size_t n = static_cast<size_t>(b.shape[b.rank - 1]);
  if (static_cast<size_t>(b.shape[b.rank - 2]) != k ||
      static_cast<size_t>(y.shape[y.rank - 2]) != m ||
      static_cast<size_t>(y.shape[y.rank - 1]) != n)
    return ctx.Fail(Status::kShapeMismatch, "inner dimensions of A, B and Y do not agree");
  p.batch_rank = y.rank - 2;
  p.batches = 1;
  for (int i = 0; i < p.batch_rank; ++i) {
    p.batch[i] = y.shape[i];
    p.batches *= static_cast<size_t>(y.shape[i]);
  }
  if (a.rank - 2 > p.batch_rank || b.rank - 2 > p.batch_rank ||
      !BatchStrides(a, p.batch, p.batch_rank, m * k, p.a_stride) ||
      !BatchStrides(b, p.batch, p.batch_rank, k * n, p.b_stride))
    return ctx.Fail(Status::kShapeMismatch, "batch dims of A and B do not broadcast to Y");
  p.gemm.m = m;
  p.gemm.n = n;
  p.gemm.k = k;
  p.gemm.lda = k;
  p.gemm.ldb = n;
  p.gemm.ldc = n;
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const MatMulPrepared& p = ctx.prepared<MatMulPrepared>();
  const float* a = ctx.input(0).data;
  const float* b = ctx.input(1).data;
  float* y = ctx.output(0).data;
  const size_t y_matrix = p.gemm.m * p.gemm.n;
  for (size_t flat = 0; flat < p.batches; ++flat) {
    size_t rest = flat, a_off = 0, b_off = 0;
    for (int i = p.batch_rank - 1; i >= 0; --i) {
      const size_t idx = rest % static_cast<size_t>(p.batch[i]);
      rest /= static_cast<size_t>(p.batch[i]);
      a_off += idx * p.a_stride[i];
      b_off += idx * p.b_stride[i];
    }
    ctx.k.gemm(p.gemm, a + a_off, b + b_off, y + flat * y_matrix);
  }
  return Status::kOk;
}

const OpKernel kMatMul = CoreOp({Prepare, Eval, 2, 2});

}  // namespace

const OpKernel* RegisterMatMul() { return &kMatMul; }

}  // namespace edgefold::internal
