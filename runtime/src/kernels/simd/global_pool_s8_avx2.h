// The int8 global pool (Int8KernelTable::global_pool_s8, ref::GlobalPoolS8's bits) on AVX2,
// 32 values a step as global_pool_s8_x86.h on AVX-512BW: the maximum by vpmaxsb, the sum by
// vpsadbw over x + 128 (then −128 per value), the row's last n mod 32 values one at a time;
// the mean rounded half away from zero as the reference. Included by int8_simd.h inside the
// arch namespace.
#pragma once

#include "kernels/simd/global_pool_s8_rows.h"

namespace x86_global_pool_avx2 {

inline int8_t MaxS8(const int8_t* row, size_t n) {
  __m256i m = _mm256_set1_epi8(-128);
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    m = _mm256_max_epi8(m, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i)));
  __m128i m16 = _mm_max_epi8(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 8));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 4));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 2));
  m16 = _mm_max_epi8(m16, _mm_srli_si128(m16, 1));
  int8_t best = static_cast<int8_t>(_mm_cvtsi128_si32(m16));
  for (; i < n; ++i) best = std::max(best, row[i]);
  return best;
}

// Σ row[i] for i < n (n < 2^23: the reference's bound).
inline int32_t SumS8(const int8_t* row, size_t n) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  __m256i acc = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i u =
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i)), flip);
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(u, _mm256_setzero_si256()));
  }
  const __m128i half = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  int64_t sum =
      _mm_cvtsi128_si64(half) + _mm_extract_epi64(half, 1) - 128 * static_cast<int64_t>(i);
  for (; i < n; ++i) sum += row[i];
  return static_cast<int32_t>(sum);
}

inline constexpr auto GlobalPoolS8 = &GlobalPoolS8Rows<MaxS8, SumS8>;

}  // namespace x86_global_pool_avx2
