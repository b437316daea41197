// RequantizeS8 (kernels/int8_params.h) on 8 int32 lanes with AVX2: the magnitude |acc|·M as
// exact unsigned 64-bit products of even and odd lanes, rounded half up by the shift, values
// past 2^16 clamped there (they clamp to the same int8, |zp| ≤ 128), the sign put back with
// psignd, then zero point, clamp and narrowing: the scalar rule's bits.
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace edgefold::kernels::avx2_requant {

inline __m256i RoundedMagnitude(__m256i product, __m256i half, __m128i count, __m256i lim) {
  const __m256i v = _mm256_srl_epi64(_mm256_add_epi64(product, half), count);
  return _mm256_blendv_epi8(v, lim,
                            _mm256_cmpgt_epi64(v, lim));  // v < 2^62: a signed compare is right
}

// The 8 requantized values as int8 at q[0..7].
inline void RequantizeS8x8(__m256i acc, int32_t multiplier, int32_t shift, int32_t zero_point,
                           int32_t act_min, int32_t act_max, int8_t* q) {
  const int n = 31 + shift;
  const __m128i count = _mm_cvtsi32_si128(n);
  const __m256i m = _mm256_set1_epi64x(multiplier),
                half = _mm256_set1_epi64x(int64_t{1} << (n - 1));
  const __m256i lim = _mm256_set1_epi64x(65536);
  const __m256i magnitude = _mm256_abs_epi32(acc);  // |INT32_MIN| reads as 2^31 unsigned
  const __m256i even = RoundedMagnitude(_mm256_mul_epu32(magnitude, m), half, count, lim);
  const __m256i odd =
      RoundedMagnitude(_mm256_mul_epu32(_mm256_srli_epi64(magnitude, 32), m), half, count, lim);
  __m256i v = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  v = _mm256_sign_epi32(v, acc);  // acc = 0 gives 0, which the rounding gave too
  v = _mm256_add_epi32(v, _mm256_set1_epi32(zero_point));
  v = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(act_min)), _mm256_set1_epi32(act_max));
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(q), _mm_packs_epi16(words, words));
}

// One multiplier and shift's constants, set up once for many registers (a depthwise channel,
// a MulInt8 row) instead of per register as RequantizeS8x8 does.
struct Rounding {
  __m256i m, half, lim, zp, lo, hi;
  __m128i count;
  bool wide;  // n = 31 + shift ≤ 31: a magnitude may pass 2^31 and is clamped at 2^16
};

inline Rounding MakeRounding(int32_t multiplier, int32_t shift, int32_t zero_point, int32_t act_min,
                             int32_t act_max) {
  const int n = 31 + shift;
  Rounding r;
  r.m = _mm256_set1_epi64x(multiplier);
  r.half = _mm256_set1_epi64x(int64_t{1} << (n - 1));
  r.lim = _mm256_set1_epi64x(65536);
  r.zp = _mm256_set1_epi32(zero_point);
  r.lo = _mm256_set1_epi32(act_min);
  r.hi = _mm256_set1_epi32(act_max);
  r.count = _mm_cvtsi32_si128(n);
  r.wide = n < 32;
  return r;
}

// RequantizeS8 of 8 lanes as int32 (zero point added, clamped). For n ≥ 32 the rounded
// magnitude is at most 2^62 / 2^32 = 2^30 (M < 2^31, |acc| ≤ 2^31): no clamp needed before
// the sign and the zero point.
inline __m256i RequantizeS32x8(__m256i acc, const Rounding& r) {
  const __m256i magnitude = _mm256_abs_epi32(acc);
  __m256i even =
      _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(magnitude, r.m), r.half), r.count);
  __m256i odd = _mm256_srl_epi64(
      _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(magnitude, 32), r.m), r.half), r.count);
  if (r.wide) {
    even = _mm256_blendv_epi8(even, r.lim, _mm256_cmpgt_epi64(even, r.lim));
    odd = _mm256_blendv_epi8(odd, r.lim, _mm256_cmpgt_epi64(odd, r.lim));
  }
  __m256i v = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  v = _mm256_add_epi32(_mm256_sign_epi32(v, acc), r.zp);
  return _mm256_min_epi32(_mm256_max_epi32(v, r.lo), r.hi);
}

// One register of requantized int32 as 8 int8 (the low 8 bytes).
inline __m128i NarrowS8x8(__m256i v) {
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  return _mm_packs_epi16(words, words);
}

// Two registers of requantized int32 (lanes 0–7, 8–15) as 16 int8.
inline __m128i NarrowS8x16(__m256i first, __m256i second) {
  const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(first, second), 0xD8);
  return _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
}

}  // namespace edgefold::kernels::avx2_requant
