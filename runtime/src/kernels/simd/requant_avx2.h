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

}  // namespace edgefold::kernels::avx2_requant
