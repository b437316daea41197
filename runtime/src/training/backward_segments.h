// The backward's segments (compile --recompute): [first_backward, num_ops) split at the op
// indices the training section lists. Every segment but the last is recomputed: just before
// its backward, its forward runs again from the values entering it (its checkpoints), so what
// its backward reads is alive only from then on instead of from the first forward.
#pragma once
#include <cstddef>
#include <cstdint>

#include "model/model_reader.h"

namespace edgefold::internal {

class BackwardSegments {
 public:
  BackwardSegments(const ModelSummary& s, int32_t first_backward)
      : bounds_(s.recompute_segments),
        num_bounds_(s.num_recompute_segments),
        first_(first_backward),
        n_(static_cast<int32_t>(s.num_ops)) {
    while (skip_ < num_bounds_ && bounds_[skip_] <= first_) ++skip_;
  }
  size_t count() const { return first_ < n_ ? 1 + (num_bounds_ - skip_) : 0; }
  int32_t start(size_t k) const { return k == 0 ? first_ : bounds_[skip_ + k - 1]; }
  int32_t end(size_t k) const { return k + 1 < count() ? start(k + 1) : n_; }
  bool recomputed(size_t k) const { return k + 1 < count(); }
  // The segment holding `op`, or -1 for an op before the backward's start.
  int32_t SegmentOf(int32_t op) const {
    if (op < first_ || op >= n_) return -1;
    size_t k = 0;
    while (k + 1 < count() && start(k + 1) <= op) ++k;
    return static_cast<int32_t>(k);
  }

 private:
  const int32_t* bounds_;
  size_t num_bounds_, skip_ = 0;
  int32_t first_, n_;
};

}  // namespace edgefold::internal
