#include "kernels/ref/softmax_s8.h"

namespace edgefold::kernels::ref {

// Each T ≤ 2^20, so 256·T ≤ 2^28. When S ≥ 2^32 every 256·T < S/2 and every y is −128; below
// it the rounded quotient fits 32-bit arithmetic (256·T + ⌊S/2⌋ < 2^32), which keeps the
// Cortex-M build on its hardware divide instead of a 64-bit division routine.
void SoftmaxS8(const int32_t* exp_table, const int8_t* x, int8_t* y, size_t rows, size_t classes) {
  for (size_t r = 0; r < rows; ++r, x += classes, y += classes) {
    int32_t max = -128;
    for (size_t i = 0; i < classes; ++i) max = x[i] > max ? x[i] : max;
    uint64_t sum = 0;
    for (size_t i = 0; i < classes; ++i) sum += static_cast<uint32_t>(exp_table[max - x[i]]);
    if (sum > UINT32_MAX) {
      for (size_t i = 0; i < classes; ++i) y[i] = -128;
      continue;
    }
    const uint32_t s = static_cast<uint32_t>(sum), half = s / 2;
    for (size_t i = 0; i < classes; ++i) {
      const uint32_t q = ((static_cast<uint32_t>(exp_table[max - x[i]]) << 8) + half) / s;   // ∈ [0, 256]
      y[i] = static_cast<int8_t>((q > 255 ? 255 : static_cast<int32_t>(q)) - 128);
    }
  }
}

}  // namespace edgefold::kernels::ref
