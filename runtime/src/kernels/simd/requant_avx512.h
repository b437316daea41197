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

// One output row's constants for RoundedS32x16 (M, the rounding half, the shift counts),
// built once per row of a tile rather than once per register.
struct RowRounding {
  __m512i m, half;
  __m128i count, count_hi;  // n, and n − 32 for the odd lanes when n ≥ 32
  bool narrow;              // n ≥ 32
};

inline RowRounding MakeRowRounding(int32_t multiplier, int32_t shift) {
  const int n = 31 + shift;
  return {_mm512_set1_epi64(multiplier), _mm512_set1_epi64(int64_t{1} << (n - 1)),
          _mm_cvtsi32_si128(n), _mm_cvtsi32_si128(n >= 32 ? n - 32 : 0), n >= 32};
}

// RequantizeS8's RoundShift(acc·M, n) of 16 lanes, before the zero point and the clamp, as
// RequantizeS8x16 computes it (values beyond ±2^16 clamped there when n < 32: they clamp to
// the same int8).
inline __m512i RoundedS32x16(__m512i acc, const RowRounding& k) {
  const __m512i magnitude = _mm512_abs_epi32(acc);  // |INT32_MIN| reads as 2^31 unsigned
  const __m512i even_product = _mm512_add_epi64(_mm512_mul_epu32(magnitude, k.m), k.half);
  const __m512i odd_product =
      _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), k.m), k.half);
  __m512i q;
  if (k.narrow) {
    q = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA),
                                _mm512_srl_epi64(even_product, k.count),
                                _mm512_srl_epi64(odd_product, k.count_hi));
  } else {
    const __m512i lim = _mm512_set1_epi64(65536);
    const __m512i even = _mm512_min_epu64(_mm512_srl_epi64(even_product, k.count), lim);
    const __m512i odd = _mm512_min_epu64(_mm512_srl_epi64(odd_product, k.count), lim);
    q = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA), even, _mm512_slli_epi64(odd, 32));
  }
  return _mm512_mask_sub_epi32(q, _mm512_movepi32_mask(acc), _mm512_setzero_si512(), q);
}

// 64 int8 = clamp(zp + q, lo, hi) of four registers of RoundedS32x16, in the order of
// vpackssdw/vpacksswb: 128-bit lane L holds q0[4L..4L+3], q1[4L..], q2[4L..], q3[4L..]. The
// narrowing saturates (int32 → int16, + zp in int16, → int8) before the clamp: a value that
// saturates lies beyond int8 and clamps to the same bound as the exact sum would (|zp| ≤ 128,
// [lo, hi] ⊂ int8).
inline __m512i PackFourS8(__m512i q0, __m512i q1, __m512i q2, __m512i q3, __m512i zp16, __m512i lo8,
                          __m512i hi8) {
  const __m512i w01 = _mm512_adds_epi16(_mm512_packs_epi32(q0, q1), zp16);
  const __m512i w23 = _mm512_adds_epi16(_mm512_packs_epi32(q2, q3), zp16);
  return _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(w01, w23), lo8), hi8);
}

// PackFourS8 in register order (q0's 16 lanes first): one dword permute.
inline __m512i NarrowFourS8(__m512i q0, __m512i q1, __m512i q2, __m512i q3, __m512i zp16,
                            __m512i lo8, __m512i hi8) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, PackFourS8(q0, q1, q2, q3, zp16, lo8, hi8));
}

// The lanes in `keep` of RequantizeS8x16 stored at y.
inline void StoreS8(__m512i acc, int32_t multiplier, int32_t shift, int32_t zero_point,
                    int32_t act_min, int32_t act_max, __mmask16 keep, int8_t* y) {
  _mm_mask_storeu_epi8(y, keep,
                       RequantizeS8x16(acc, multiplier, shift, zero_point, act_min, act_max));
}

}  // namespace edgefold::kernels::avx512_requant
