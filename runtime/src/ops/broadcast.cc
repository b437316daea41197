#include "ops/broadcast.h"

namespace edgefold::internal {
namespace {

// Strides of `t` right-aligned to `rank` dims; 0 where t's dim is 1 (or missing).
void AlignedStrides(const TensorInfo& t, int rank, size_t* stride, size_t* dim) {
  size_t step = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int ti = i - (rank - t.rank);
    dim[i] = (ti >= 0) ? static_cast<size_t>(t.shape[ti]) : 1;
    stride[i] = (dim[i] == 1) ? 0 : step;
    step *= dim[i];
  }
}

}  // namespace

bool PlanBroadcast(const TensorInfo& a, const TensorInfo& b, const TensorInfo& y,
                   BroadcastPlan* plan) {
  const int rank = y.rank;
  if (a.rank > rank || b.rank > rank) return false;
  size_t as[kMaxRank], bs[kMaxRank], ad[kMaxRank], bd[kMaxRank];
  AlignedStrides(a, rank, as, ad);
  AlignedStrides(b, rank, bs, bd);
  BroadcastPlan p;
  for (int i = 0; i < rank; ++i) {
    const size_t yd = static_cast<size_t>(y.shape[i]);
    if ((ad[i] != yd && ad[i] != 1) || (bd[i] != yd && bd[i] != 1)) return false;
    if ((ad[i] == 1 && bd[i] == 1) != (yd == 1)) return false;
    if (yd == 1) continue;
    // Merge into the previous loop when both operands continue it seamlessly.
    if (p.rank > 0 && p.a_stride[p.rank - 1] == as[i] * yd &&
        p.b_stride[p.rank - 1] == bs[i] * yd) {
      p.dims[p.rank - 1] *= yd;
      p.a_stride[p.rank - 1] = as[i];
      p.b_stride[p.rank - 1] = bs[i];
      continue;
    }
    p.dims[p.rank] = yd;
    p.a_stride[p.rank] = as[i];
    p.b_stride[p.rank] = bs[i];
    ++p.rank;
  }
  // The innermost loop must read each operand contiguously or as a scalar; when both are
  // broadcast there, add a unit loop so the kernel sees n = 1.
  if (p.rank == 0 || (p.a_stride[p.rank - 1] == 0 && p.b_stride[p.rank - 1] == 0)) {
    p.dims[p.rank] = 1;
    p.a_stride[p.rank] = 1;
    p.b_stride[p.rank] = 1;
    ++p.rank;
  }
  const size_t ia = p.a_stride[p.rank - 1], ib = p.b_stride[p.rank - 1];
  p.inner_mode = (ia != 0 && ib != 0) ? kernels::BroadcastMode::kElementwise
                 : (ib == 0)          ? kernels::BroadcastMode::kScalarB
                                      : kernels::BroadcastMode::kScalarA;
  p.inner = p.dims[p.rank - 1];
  p.outer = 1;
  for (int i = 0; i + 1 < p.rank; ++i) p.outer *= p.dims[i];
  *plan = p;
  return true;
}

}  // namespace edgefold::internal
