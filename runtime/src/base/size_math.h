// Saturating size arithmetic, the one copy every layer uses (arena layouts, scratch sizes,
// the trainer's layout). A hostile model's dims can overflow a product, and on a 32-bit
// target a planned arena plus the runtime's records can exceed SIZE_MAX: SIZE_MAX, which no
// arena can satisfy, is the honest answer then, never a wrapped small size.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgefold {

constexpr size_t kSizeSaturated = SIZE_MAX;

constexpr size_t MulSat(size_t a, size_t b) {
  return (a != 0 && b > kSizeSaturated / a) ? kSizeSaturated : a * b;
}
constexpr size_t AddSat(size_t a, size_t b) {
  return a > kSizeSaturated - b ? kSizeSaturated : a + b;
}
// a rounded up to a multiple of `multiple` (> 0).
constexpr size_t RoundUpSat(size_t a, size_t multiple) {
  return a > kSizeSaturated - (multiple - 1) ? kSizeSaturated
                                             : (a + multiple - 1) / multiple * multiple;
}

}  // namespace edgefold
