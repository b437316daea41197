// Saturating size arithmetic for scratch layouts: a hostile model's dims can overflow a product,
// and SIZE_MAX (which no plan can satisfy) is the honest answer then, not a wrapped small size.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgefold::kernels {

constexpr size_t kSizeSaturated = SIZE_MAX;

inline size_t MulSat(size_t a, size_t b) { return (a != 0 && b > kSizeSaturated / a) ? kSizeSaturated : a * b; }
inline size_t AddSat(size_t a, size_t b) { return a > kSizeSaturated - b ? kSizeSaturated : a + b; }
inline size_t RoundUpSat(size_t a, size_t multiple) {
  return a > kSizeSaturated - multiple ? kSizeSaturated : (a + multiple - 1) / multiple * multiple;
}

}  // namespace edgefold::kernels
