// The int8 rounding rules of kernels/int8_params.h on 16 int32 lanes with AVX-512: the same
// 64-bit products and the same half-away-from-zero rounding, so the bits are the scalar
// rules'. Even and odd lanes are multiplied separately (vpmuldq takes the low dword of each
// qword) and put back together before the zero point, the clamp and the narrowing.
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace edgefold::kernels::avx512_requant {

// RoundShiftHalfAway on 8 signed 64-bit lanes, n ∈ [1, 62]; results beyond ±2^16 are clamped
// there (they clamp to the same int8 as the 64-bit value would, |zp| ≤ 128) so that they fit
// the dword the blend keeps.
inline __m512i RoundShiftHalfAway64(__m512i v, int n) {
  const __m128i count = _mm_cvtsi32_si128(n);
  const __m512i half = _mm512_set1_epi64(int64_t{1} << (n - 1));
  const __m512i sign = _mm512_srai_epi64(v, 63);
  const __m512i magnitude = _mm512_srl_epi64(
      _mm512_add_epi64(_mm512_sub_epi64(_mm512_xor_si512(v, sign), sign), half), count);
  const __m512i r = _mm512_sub_epi64(_mm512_xor_si512(magnitude, sign), sign);
  return _mm512_min_epi64(_mm512_max_epi64(r, _mm512_set1_epi64(-65536)), _mm512_set1_epi64(65536));
}

// clamp(zp + round(lane), lo, hi) as 16 int8, lanes 0, 2, … from `even`, 1, 3, … from `odd`
// (64-bit values before the shift by n).
inline __m128i NarrowS8(__m512i even, __m512i odd, int n, int32_t zero_point, int32_t act_min,
                        int32_t act_max) {
  __m512i q = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA), RoundShiftHalfAway64(even, n),
                                      _mm512_slli_epi64(RoundShiftHalfAway64(odd, n), 32));
  q = _mm512_add_epi32(q, _mm512_set1_epi32(zero_point));
  q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(act_min)), _mm512_set1_epi32(act_max));
  return _mm512_cvtepi32_epi8(q);
}

// RequantizeS8 of 16 accumulators of one output row (one multiplier and shift). M > 0, so the
// product's sign is acc's: the magnitude |acc|·M (unsigned, exact) is rounded half up and
// the sign put back after narrowing, which needs fewer steps than signed 64-bit rounding.
inline __m128i RequantizeS8x16(__m512i acc, int32_t multiplier, int32_t shift, int32_t zero_point,
                               int32_t act_min, int32_t act_max) {
  const int n = 31 + shift;
  const __m128i count = _mm_cvtsi32_si128(n);
  const __m512i m = _mm512_set1_epi64(multiplier), half = _mm512_set1_epi64(int64_t{1} << (n - 1));
  const __m512i magnitude = _mm512_abs_epi32(acc);  // |INT32_MIN| reads as 2^31 unsigned
  const __m512i even_product = _mm512_add_epi64(_mm512_mul_epu32(magnitude, m), half);
  const __m512i odd_product =
      _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), m), half);
  __m512i q;
  if (n >= 32) {
    // A real multiplier below 1/2 (nearly every layer): |acc|·M < 2^62, so the rounded value
    // is below 2^30 and needs no clamp to fit a dword (beyond int8 it clamps the same either
    // way), and the odd lanes' value lands in their high dword by a shift of n − 32.
    q = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA),
                                _mm512_srl_epi64(even_product, count),
                                _mm512_srl_epi64(odd_product, _mm_cvtsi32_si128(n - 32)));
  } else {
    const __m512i lim = _mm512_set1_epi64(65536);  // see RoundShiftHalfAway64
    const __m512i even = _mm512_min_epu64(_mm512_srl_epi64(even_product, count), lim);
    const __m512i odd = _mm512_min_epu64(_mm512_srl_epi64(odd_product, count), lim);
    q = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA), even, _mm512_slli_epi64(odd, 32));
  }
  q = _mm512_mask_sub_epi32(q, _mm512_movepi32_mask(acc), _mm512_setzero_si512(), q);
  q = _mm512_add_epi32(q, _mm512_set1_epi32(zero_point));
  q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(act_min)), _mm512_set1_epi32(act_max));
  return _mm512_cvtepi32_epi8(q);
}

// The lanes in `keep` of RequantizeS8x16 stored at y.
inline void StoreS8(__m512i acc, int32_t multiplier, int32_t shift, int32_t zero_point,
                    int32_t act_min, int32_t act_max, __mmask16 keep, int8_t* y) {
  _mm_mask_storeu_epi8(y, keep,
                       RequantizeS8x16(acc, multiplier, shift, zero_point, act_min, act_max));
}

}  // namespace edgefold::kernels::avx512_requant
