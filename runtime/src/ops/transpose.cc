// Transpose: y[i_0..i_{r-1}] = x[j] with j_{perm[d]} = i_d.
#include "ops/op_kernel.h"

namespace edgefold::internal {
namespace {

struct TransposePrepared {
  int rank;
  size_t out_dims[kMaxRank];
  size_t in_stride[kMaxRank];   // x's stride for each output dim
};

Status Prepare(OpContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.output(0);
  const TransposeOptions& o = ctx.op.options.transpose;
  if (o.rank != x.rank || y.rank != x.rank)
    return ctx.Fail(Status::kShapeMismatch, "perm has %d axes, input rank %d, output rank %d", static_cast<int>(o.rank), x.rank, y.rank);
  size_t stride[kMaxRank];
  size_t step = 1;
  for (int d = x.rank - 1; d >= 0; --d) {
    stride[d] = step;
    step *= static_cast<size_t>(x.shape[d]);
  }
  TransposePrepared& p = ctx.prepared<TransposePrepared>();
  p.rank = x.rank;
  bool seen[kMaxRank] = {};
  for (int d = 0; d < x.rank; ++d) {
    const int src = o.perm[d];
    if (src < 0 || src >= x.rank || seen[src]) return ctx.Fail(Status::kInvalidModel, "perm is not a permutation");
    seen[src] = true;
    if (y.shape[d] != x.shape[src]) return ctx.Fail(Status::kShapeMismatch, "output dim %d does not match input dim %d", d, static_cast<int>(src));
    p.out_dims[d] = static_cast<size_t>(y.shape[d]);
    p.in_stride[d] = stride[src];
  }
  return Status::kOk;
}

Status Eval(OpContext& ctx) {
  const TransposePrepared& p = ctx.prepared<TransposePrepared>();
  const float* x = ctx.input(0).data;
  float* y = ctx.output(0).data;
  const size_t n = ctx.output(0).elems;
  if (p.rank == 0) { y[0] = x[0]; return Status::kOk; }
  size_t index[kMaxRank] = {};
  size_t src = 0;
  const int last = p.rank - 1;
  for (size_t i = 0; i < n;) {
    // Innermost output dim as a strided gather, then advance the odometer.
    for (size_t j = 0; j < p.out_dims[last]; ++j) y[i++] = x[src + j * p.in_stride[last]];
    for (int d = last - 1; d >= 0; --d) {
      src += p.in_stride[d];
      if (++index[d] < p.out_dims[d]) break;
      src -= p.in_stride[d] * p.out_dims[d];
      index[d] = 0;
    }
  }
  return Status::kOk;
}

const OpKernel kTranspose = {Prepare, Eval, 1, 1};

}  // namespace

const OpKernel* RegisterTranspose() { return &kTranspose; }

}  // namespace edgefold::internal
