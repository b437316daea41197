// Fully connected: Y[M,N] = act(X[M,K] · W[K,N] + b[N]), M = product of X's leading dims.
// The compiler stores W pre-transposed as [K,N] (ONNX Gemm alpha/beta/trans already applied).
#include "ops/op_kernel.h"
#include "ops/shape_util.h"

namespace edgefold::internal {
namespace {

Status Prepare(OpContext& ctx) {
  if (ctx.op.num_inputs < 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Fail(Status::kInvalidModel, "needs inputs X and W");
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& y = ctx.output(0);
  if (x.rank < 1 || w.rank != 2 || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "W must be rank 2 [K,N] and Y the rank of X");
  const size_t k = static_cast<size_t>(x.shape[x.rank - 1]);
  const size_t n = static_cast<size_t>(w.shape[1]);
  if (static_cast<size_t>(w.shape[0]) != k)
    return ctx.Fail(Status::kShapeMismatch, "X has K=%zu but W is [%d,%d]", k,
                    static_cast<int>(w.shape[0]), static_cast<int>(w.shape[1]));
  if (static_cast<size_t>(y.shape[y.rank - 1]) != n ||
      DimProduct(y, 0, y.rank - 1) != DimProduct(x, 0, x.rank - 1))
    return ctx.Fail(Status::kShapeMismatch, "Y shape does not match X·W");
  if (ctx.has_input(2) && ctx.input(2).elems != n)
    return ctx.Fail(Status::kShapeMismatch, "bias has %zu values for N=%zu", ctx.input(2).elems, n);
  kernels::GemmParams& p = ctx.prepared<kernels::GemmParams>();
  p = kernels::GemmParams();
  p.m = DimProduct(x, 0, x.rank - 1);
  p.n = n;
  p.k = k;
  p.lda = k;
  p.ldb = n;
  p.ldc = n;
  p.bias_per_row = false;
  p.act = ctx.op.options.act;
  return Status::kOk;
}

// Threads take rows of X (whole register tiles) when there are enough of them, else columns of
// W in blocks of 64 (a multiple of every vector width: each column keeps the code path and the
// order of its sums, so the bits do not depend on the split).
Status Eval(OpContext& ctx) {
  const kernels::GemmParams& prepared = ctx.prepared<kernels::GemmParams>();
  const float* bias = ctx.has_input(2) ? ctx.input(2).data : nullptr;
  const float* x = ctx.input(0).data;
  const float* w = ctx.input(1).data;
  float* y = ctx.output(0).data;
  const size_t threads = ctx.parallel != nullptr ? ctx.parallel->threads : 1;
  if (prepared.m >= 8 * threads) {
    ForEachRowRange(ctx.parallel, prepared.m, prepared.n * prepared.k, 8,
                    [&](size_t r0, size_t r1) {
                      kernels::GemmParams p = prepared;
                      p.m = r1 - r0;
                      p.bias = bias;
                      ctx.k.gemm(p, x + r0 * p.lda, w, y + r0 * p.ldc);
                    });
    return Status::kOk;
  }
  ForEachRowRange(ctx.parallel, prepared.n, prepared.m * prepared.k, 64, [&](size_t c0, size_t c1) {
    kernels::GemmParams p = prepared;
    p.n = c1 - c0;
    p.bias = bias != nullptr ? bias + c0 : nullptr;
    ctx.k.gemm(p, x, w + c0, y + c0);
  });
  return Status::kOk;
}

const OpKernel kGemm = CoreOp({Prepare, Eval, 2, 3});

}  // namespace

const OpKernel* RegisterGemm() { return &kGemm; }

}  // namespace edgefold::internal
