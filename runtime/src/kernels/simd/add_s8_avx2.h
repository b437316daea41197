// AddS8 (kernels/int8_params.h) on AVX2, eight outputs a step: v = (a − zp_a)·ma + (b − zp_b)·mb
// as exact signed 64-bit products of even and odd lanes (vpmuldq, |v| < 2^40), the magnitude
// rounded half up by `shift` (avx2_requant::RoundedMagnitude, clamped at 2^16: past int8 either
// way once ± |zp_y| ≤ 128), the sign put back, then zero point, clamp and narrowing: the
// reference's rule, RoundShiftHalfAway, for every shift in [1, 62]. Returns how many outputs it
// wrote (a multiple of 8); the tail is the caller's. Included inside an arch namespace.
#pragma once

namespace avx2_add {

// |v| rounded by the shift, and v's sign as all-ones 64-bit lanes.
inline __m256i RoundedHalfAway(__m256i v, __m256i half, __m128i count, __m256i lim, __m256i* sign) {
  *sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
  const __m256i magnitude = _mm256_sub_epi64(_mm256_xor_si256(v, *sign), *sign);
  return avx2_requant::RoundedMagnitude(magnitude, half, count, lim);
}

inline size_t AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  const __m256i zp_a = _mm256_set1_epi32(p.a_zero_point), zp_b = _mm256_set1_epi32(p.b_zero_point);
  const __m256i ma = _mm256_set1_epi64x(p.multiplier_a), mb = _mm256_set1_epi64x(p.multiplier_b);
  const __m128i count = _mm_cvtsi32_si128(p.shift);
  const __m256i half = _mm256_set1_epi64x(int64_t{1} << (p.shift - 1));
  const __m256i lim = _mm256_set1_epi64x(65536);
  const __m256i zp_y = _mm256_set1_epi32(p.y_zero_point), lo = _mm256_set1_epi32(p.act_min),
                hi = _mm256_set1_epi32(p.act_max);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i da = _mm256_sub_epi32(
        _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i))), zp_a);
    const __m256i db = _mm256_sub_epi32(
        _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + i))), zp_b);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(da, ma), _mm256_mul_epi32(db, mb));
    const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(da, 32), ma),
                                         _mm256_mul_epi32(_mm256_srli_epi64(db, 32), mb));
    __m256i sign_even, sign_odd;
    const __m256i r_even = RoundedHalfAway(even, half, count, lim, &sign_even);
    const __m256i r_odd = RoundedHalfAway(odd, half, count, lim, &sign_odd);
    const __m256i sign = _mm256_blend_epi32(sign_even, sign_odd, 0xAA);
    __m256i v = _mm256_blend_epi32(r_even, _mm256_slli_epi64(r_odd, 32), 0xAA);
    v = _mm256_sub_epi32(_mm256_xor_si256(v, sign), sign);
    v = _mm256_add_epi32(v, zp_y);
    v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
    const __m128i words =
        _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), _mm_packs_epi16(words, words));
  }
  return i;
}

}  // namespace avx2_add
