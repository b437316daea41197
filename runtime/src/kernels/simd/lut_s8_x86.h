// LutInt8's lookup y[i] = table[x[i] + 128] on AVX-512BW, 64 values a step: the table as 16
// rows of 16 bytes, each broadcast to the four 128-bit lanes; vpshufb looks up the low nibble
// of x + 128 in every row and a byte mask (high nibble == row) keeps the row's result. Included
// by int8_simd.h inside the arch namespace.
#pragma once

namespace x86_lut {

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

}  // namespace x86_lut
