// The int8 global pool (Int8KernelTable::global_pool_s8, ref::GlobalPoolS8's bits) on
// AVX-512BW, 64 values a step: the maximum by vpmaxsb, the sum by vpsadbw over x + 128 (then
// −128 per value), rounded to the mean half away from zero as the reference. Included by
// int8_simd.h inside the arch namespace.
#pragma once

#include "kernels/simd/global_pool_s8_rows.h"

namespace x86_global_pool {

inline int8_t MaxS8(const int8_t* row, size_t n) {
  const __m512i floor = _mm512_set1_epi8(-128);
  __m512i m = floor;
  for (size_t i = 0; i < n; i += 64) {
    const __mmask64 keep = n - i >= 64 ? ~__mmask64{0} : (__mmask64{1} << (n - i)) - 1;
    m = _mm512_max_epi8(m, _mm512_mask_loadu_epi8(floor, keep, row + i));
  }
  const __m256i m32 = _mm256_max_epi8(_mm512_castsi512_si256(m), _mm512_extracti64x4_epi64(m, 1));
  __m128i m16 = _mm_max_epi8(_mm256_castsi256_si128(m32), _mm256_extracti128_si256(m32, 1));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 8));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 4));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 2));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 1));
  return static_cast<int8_t>(_mm_cvtsi128_si32(m16));
}

// Σ row[i] for i < n (n < 2^23: the reference's bound). Lanes past n load as 0: their
// x + 128 is taken out with every other lane's.
inline int32_t SumS8(const int8_t* row, size_t n) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i acc = _mm512_setzero_si512();
  size_t lanes = 0;
  for (size_t i = 0; i < n; i += 64, lanes += 64) {
    const __mmask64 keep = n - i >= 64 ? ~__mmask64{0} : (__mmask64{1} << (n - i)) - 1;
    const __m512i u = _mm512_xor_si512(_mm512_maskz_loadu_epi8(keep, row + i), flip);
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(u, _mm512_setzero_si512()));
  }
  return static_cast<int32_t>(_mm512_reduce_add_epi64(acc) - 128 * static_cast<int64_t>(lanes));
}

inline constexpr auto GlobalPoolS8 = &GlobalPoolS8Rows<MaxS8, SumS8>;

}  // namespace x86_global_pool
