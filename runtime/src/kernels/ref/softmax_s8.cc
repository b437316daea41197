#include "kernels/ref/softmax_s8.h"

namespace edgefold::kernels::ref {

// Each T ≤ 2^20, so 256·T ≤ 2^28 and, for S < 2^32, 256·T + ⌊S/2⌋ < 2^32: the quotient is a
// 32-bit division (Cortex-M's UDIV). When S ≥ 2^32 every 256·T < S/2 and every y is −128;
// dividing by S saturated to 2^32 − 1 gives exactly that (256·T + 2^31 − 1 < 2^32 − 1).
void SoftmaxS8(const int32_t* exp_table, const int8_t* x, int8_t* y, size_t rows, size_t classes) {
  for (size_t r = 0; r < rows; ++r, x += classes, y += classes) {
    int32_t max = -128;
    for (size_t i = 0; i < classes; ++i) max = x[i] > max ? x[i] : max;
    uint64_t sum = 0;
    for (size_t i = 0; i < classes; ++i) sum += static_cast<uint32_t>(exp_table[max - x[i]]);
    const uint32_t s = sum > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(sum), half = s / 2;
    for (size_t i = 0; i < classes; ++i) {
      const uint32_t q =
          ((static_cast<uint32_t>(exp_table[max - x[i]]) << 8) + half) / s;  // ∈ [0, 256]
      y[i] = static_cast<int8_t>((q > 255 ? 255 : static_cast<int32_t>(q)) - 128);
    }
  }
}

}  // namespace edgefold::kernels::ref
