// LutInt8's lookup y[i] = table[x[i] + 128] on AVX-512BW, 64 values a step: the table as 16
// rows of 16 bytes, each broadcast to the four 128-bit lanes; vpshufb looks up the low nibble
// of x + 128 in every row and a byte mask (high nibble == row) keeps the row's result. On AVX2
// (LutS8Avx2), 32 values a step: the 16 rows' lookups, then a tree of 15 vpblendvb on the bits
// of the high nibble (bit 4 picks between rows 2r and 2r + 1, … bit 7 between the halves); the
// last n mod 32 values through a copy. Included by int8_simd.h inside the arch namespace.
#pragma once

namespace x86_lut {

#if defined(__AVX2__)
inline void LutS8Avx2(const int8_t* table, const int8_t* x, int8_t* y, size_t n) {
  __m256i rows[16];
  for (size_t c = 0; c < 16; ++c)
    rows[c] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * c)));
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const auto lookup = [&](__m256i v) {
    const __m256i u = _mm256_xor_si256(v, flip);  // x + 128
    const __m256i lo = _mm256_and_si256(u, nibble);
    __m256i level[16];
#pragma GCC unroll 16
    for (size_t c = 0; c < 16; ++c) level[c] = _mm256_shuffle_epi8(rows[c], lo);
    // vpblendvb reads bit 7 of each byte: u shifted left by 3, 2, 1, 0 puts bit 4, 5, 6, 7 there
    // (a 16-bit shift: the bits a byte takes from its neighbour land below bit 3).
    const __m256i bit[4] = {_mm256_slli_epi16(u, 3), _mm256_slli_epi16(u, 2),
                            _mm256_slli_epi16(u, 1), u};
    size_t count = 16;
#pragma GCC unroll 4
    for (size_t b = 0; b < 4; ++b) {
      count /= 2;
#pragma GCC unroll 8
      for (size_t c = 0; c < count; ++c)
        level[c] = _mm256_blendv_epi8(level[2 * c], level[2 * c + 1], bit[b]);
    }
    return level[0];
  };
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                        lookup(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i))));
  if (i < n) {
    alignas(32) int8_t rest[32] = {};
    std::memcpy(rest, x + i, n - i);
    _mm256_store_si256(reinterpret_cast<__m256i*>(rest),
                       lookup(_mm256_load_si256(reinterpret_cast<const __m256i*>(rest))));
    std::memcpy(y + i, rest, n - i);
  }
}
#endif

#if defined(__AVX512BW__)
inline void LutS8(const int8_t* table, const int8_t* x, int8_t* y, size_t n) {
  __m512i rows[16];
  for (size_t c = 0; c < 16; ++c)
    rows[c] =
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * c)));
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i nibble = _mm512_set1_epi8(0x0F), one = _mm512_set1_epi8(1);
  for (size_t i = 0; i < n; i += 64) {
    const __mmask64 keep = n - i >= 64 ? ~__mmask64{0} : (__mmask64{1} << (n - i)) - 1;
    const __m512i u = _mm512_xor_si512(_mm512_maskz_loadu_epi8(keep, x + i), flip);  // x + 128
    const __m512i lo = _mm512_and_si512(u, nibble);
    const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(u, 4), nibble);
    __m512i out = _mm512_shuffle_epi8(rows[0], lo);
    __m512i row = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (size_t c = 1; c < 16; ++c) {
      row = _mm512_add_epi8(row, one);
      out = _mm512_mask_shuffle_epi8(out, _mm512_cmpeq_epi8_mask(hi, row), rows[c], lo);
    }
    _mm512_mask_storeu_epi8(y + i, keep, out);
  }
}

#endif

}  // namespace x86_lut
