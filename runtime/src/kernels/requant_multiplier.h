// The fixed-point form of a real requantization multiplier (docs/quantization.md): shared by
// the compiler (int8 ops) and the runtime (int8 statistics adaptation rewrites multipliers).
#pragma once
#include <cmath>
#include <cstdint>

namespace edgefold::kernels {

// real = M·2^−(31 + shift), M ∈ [2^30, 2^31). False when real is too large for shift ≥ −30.
// Multipliers below 2^−32 (outputs that never leave the zero point) become the smallest one.
inline bool QuantizeMultiplier(double real, int32_t* multiplier, int32_t* shift) {
  if (!(real > 0.0) || !std::isfinite(real)) return false;
  int e = 0;
  const double f = std::frexp(real, &e);  // real = f·2^e, f ∈ [0.5, 1)
  int64_t m = static_cast<int64_t>(std::llround(f * 2147483648.0));
  if (m == (int64_t{1} << 31)) {
    m >>= 1;
    ++e;
  }
  if (-e < -30) return false;
  if (-e > 31) {
    *multiplier = 1 << 30;
    *shift = 31;
    return true;
  }
  *multiplier = static_cast<int32_t>(m);
  *shift = -e;
  return true;
}

}  // namespace edgefold::kernels
