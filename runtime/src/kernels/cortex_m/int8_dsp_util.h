// Shared by the DSP-extension int8 kernels (int8_dsp.cc, int8_dsp_depthwise.cc): word loads,
// the SXTB16 halves and the requantization of a row of accumulators.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/cortex_m/int8_dsp.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include <arm_acle.h>

namespace edgefold::kernels::cortex_m_dsp {

// Firmware is built for size (-Os), where GCC keeps even these out of line: the hot helpers
// are always inlined.
#define EDGEFOLD_DSP_INLINE inline __attribute__((always_inline))

EDGEFOLD_DSP_INLINE uint32_t Load32(const int8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));  // unaligned LDR (allowed on ARMv7E-M)
  return v;
}
EDGEFOLD_DSP_INLINE int32_t Even(uint32_t w) { return __sxtb16(static_cast<int32_t>(w)); }
EDGEFOLD_DSP_INLINE int32_t Odd(uint32_t w) {
  return __sxtb16(static_cast<int32_t>((w >> 8) | (w << 24)));
}
// The first n < 4 bytes of p as a word, the rest zero (a tail: no read past the row).
EDGEFOLD_DSP_INLINE uint32_t LoadTail(const int8_t* p, size_t n) {
  uint32_t w = 0;
  for (size_t d = 0; d < n; ++d) w |= static_cast<uint32_t>(static_cast<uint8_t>(p[d])) << (8 * d);
  return w;
}

// RequantizeS8(acc, M, shift, zp, lo, hi) arranged for RequantRow. With n = 31 + shift = 32 + t,
// 1 ≤ t ≤ 22 (a real multiplier in [2^−54, 2^−2): every conv of the networks measured):
//   q = ssat8(hi32(acc·M + 2^(n−1) − [acc < 0] + zp·2^n) >> t), then clamped to [lo, hi]
// which is RequantizeS8's formula with the zero point added before the shift (a multiple of
// 2^n, so the floor is unchanged; |hi32| < 2^30 + 2^21 + 2^29 cannot overflow for t ≤ 22).
// The − [acc < 0] only decides exact ties (acc·M ≡ 2^(n−1) mod 2^n), impossible while
// ctz(M) ≤ t (as ctz(acc) ≤ 30): such rows (no_ties, nearly all) drop it and take
//   q = ssat8(SMMLA(acc, M, high) >> t),  high = hi32(2^(n−1)) + zp·2^t
// The clamp runs on four packed bytes (SSUB8/SEL); SSAT first keeps each byte exact.
// Other rows take RequantizeS8 per output.
struct ActRequant {  // shared by every row of a call
  int32_t zero_point = 0, act_min = -128, act_max = 127;
  uint32_t min4 = 0, max4 = 0;  // act_min, act_max in each byte
};
struct RowRequant {  // one output channel
  int32_t multiplier = 0, shift = 0, t = 0;
  uint32_t high = 0;     // hi32(2^(n−1)) + zp·2^t
  bool no_ties = false;  // no acc·M is a rounding tie: q = ssat8(SMMLA(acc, M, high) >> t)
  bool Fast() const { return t >= 1 && t <= 22; }
};
ActRequant MakeActRequant(int32_t zero_point, int32_t act_min, int32_t act_max);
RowRequant MakeRowRequant(int32_t multiplier, int32_t shift, const ActRequant& act);

// y[0, n) = RequantizeS8(acc[j], …): 6 instructions per output for a no_ties row. acc must be
// readable up to n rounded up to a multiple of 4 (the values past n are ignored); y may be
// unaligned.
void RequantRow(const int32_t* acc, size_t n, const RowRequant& q, const ActRequant& act,
                int8_t* y);

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
