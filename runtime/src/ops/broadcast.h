// Numpy-style broadcasting of two operands to an output, reduced to the fewest loops:
// size-1 output dims are dropped and adjacent dims merged while both operands stay
// contiguous (or both stay broadcast) across them. The innermost loop goes to a kernel.
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"
#include "model/model_types.h"

namespace edgefold::internal {

struct BroadcastPlan {
  int rank = 0;  // merged loop count (≥ 1)
  size_t dims[kMaxRank + 1] = {};
  size_t a_stride[kMaxRank + 1] = {};  // elements per step; 0 where the operand is broadcast
  size_t b_stride[kMaxRank + 1] = {};
  kernels::BroadcastMode inner_mode = kernels::BroadcastMode::kElementwise;
  size_t inner = 1;  // dims[rank-1]
  size_t outer = 1;  // product of dims[0, rank-1)
};

// False when a or b does not broadcast to y's shape.
bool PlanBroadcast(const TensorInfo& a, const TensorInfo& b, const TensorInfo& y,
                   BroadcastPlan* plan);

// Calls fn(a_offset, b_offset, y_offset) for each of plan.outer inner runs.
template <class Fn>
void ForEachInnerRun(const BroadcastPlan& p, Fn&& fn) {
  size_t index[kMaxRank + 1] = {};
  size_t a_off = 0, b_off = 0;
  for (size_t run = 0; run < p.outer; ++run) {
    fn(a_off, b_off, run * p.inner);
    // Odometer over the outer dims, innermost outer dim first.
    for (int d = p.rank - 2; d >= 0; --d) {
      a_off += p.a_stride[d];
      b_off += p.b_stride[d];
      if (++index[d] < p.dims[d]) break;
      a_off -= p.a_stride[d] * p.dims[d];
      b_off -= p.b_stride[d] * p.dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace edgefold::internal
