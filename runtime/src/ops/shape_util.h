// Small shape helpers shared by ops' Prepare functions.
#pragma once
#include <cstddef>

#include "model/model_types.h"

namespace edgefold::internal {

// Product of shape[from, to).
inline size_t DimProduct(const TensorInfo& t, int from, int to) {
  size_t n = 1;
  for (int i = from; i < to; ++i) n *= static_cast<size_t>(t.shape[i]);
  return n;
}

inline bool SameShape(const TensorInfo& a, const TensorInfo& b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.shape[i] != b.shape[i]) return false;
  return true;
}

// Output length of a sliding window: floor or ceil of (in + pads − dilated kernel) / stride, + 1.
inline long WindowOutput(long in, long pad_begin, long pad_end, long kernel, long stride,
                         long dilation, bool ceil_mode) {
  const long span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
}

}  // namespace edgefold::internal
