// The AVX-512 step of the int8 channels-innermost depthwise (conv2d_depthwise_s8_hwc_simd.h):
// 16 channels of one output row in one register, stored by an 8 × 16 byte transposition and
// masked stores. Included by depthwise_s8_hwc_x86.h inside the arch namespace.
#pragma once

// pixels[p] holds lane l of output pixel p (p < 8, l < 16); lane l belongs to channel lane[l],
// whose row of `width` ≤ 8 outputs starts at y + lane[l]·out_plane. An 8 × 16 byte transposition
// (unpacks of bytes, words, dwords) gives each lane's 8 pixels as one 64-bit half, stored with a
// byte mask: 16 stores a row instead of one per output.
inline void StoreLanesToPlanes(const __m128i pixels[8], size_t width, const int lane[16], int8_t* y,
                               size_t out_plane) {
  __m128i a[8], b[8];
  for (int k = 0; k < 4; ++k) {
    a[k] = _mm_unpacklo_epi8(pixels[2 * k], pixels[2 * k + 1]);      // lanes 0-7
    a[k + 4] = _mm_unpackhi_epi8(pixels[2 * k], pixels[2 * k + 1]);  // lanes 8-15
  }
  for (int h = 0; h < 8; h += 4) {
    // h = 0: lanes 0-7, h = 4: lanes 8-15 (2h + …)
    b[h] = _mm_unpacklo_epi16(a[h], a[h + 1]);          // lanes 2h + 0..3, pixels 0-3
    b[h + 1] = _mm_unpackhi_epi16(a[h], a[h + 1]);      // lanes 2h + 4..7, pixels 0-3
    b[h + 2] = _mm_unpacklo_epi16(a[h + 2], a[h + 3]);  // lanes 2h + 0..3, pixels 4-7
    b[h + 3] = _mm_unpackhi_epi16(a[h + 2], a[h + 3]);  // lanes 2h + 4..7, pixels 4-7
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << width) - 1);
  for (int h = 0; h < 8; h += 4)
    for (int g = 0; g < 2; ++g) {
      const int l0 = 2 * h + 4 * g;  // the first of the four lanes these two registers hold
      const __m128i lo = _mm_unpacklo_epi32(b[h + g], b[h + 2 + g]);  // lanes l0, l0 + 1
      const __m128i hi = _mm_unpackhi_epi32(b[h + g], b[h + 2 + g]);  // lanes l0 + 2, l0 + 3
      _mm_mask_storeu_epi8(y + lane[l0] * out_plane, mask, lo);
      _mm_mask_storeu_epi8(y + lane[l0 + 1] * out_plane, mask, _mm_srli_si128(lo, 8));
      _mm_mask_storeu_epi8(y + lane[l0 + 2] * out_plane, mask, hi);
      _mm_mask_storeu_epi8(y + lane[l0 + 3] * out_plane, mask, _mm_srli_si128(hi, 8));
    }
}

// The AVX-512 table's step: 16 channels [c, c + 16) of output row `oh` at once, the same sums
// and rounding as the 8-channel step below. The in-lane unpacks of 16 int16 put channels
// c + kLane[l] in int32 lane l, so the per-channel constants are gathered in that order and
// each lane's result goes back to its channel's plane.
inline void DepthwiseHwcRow16(const Conv2dShape& s, const int16_t* const ring_rows[3], size_t cp,
                              const int16_t* wt, const int32_t* bias, const int32_t* mult,
                              const int64_t* right, const GemmS8Params& rq, size_t c, int8_t* yc,
                              size_t out_plane) {
  static constexpr int kLane[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
  const auto pairs = [](__m256i a, __m256i b) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_unpacklo_epi16(a, b)),
                              _mm256_unpackhi_epi16(a, b), 1);
  };
  const auto load16 = [](const int16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  };
  __m512i wp[5];
  for (int k = 0; k < 5; ++k)
    wp[k] = pairs(load16(wt + 2 * k * cp + c),
                  k < 4 ? load16(wt + (2 * k + 1) * cp + c) : _mm256_setzero_si256());
  alignas(64) int32_t b_l[16], m_l[16];
  alignas(64) int64_t n_even_l[8], n_odd_l[8];
  for (int l = 0; l < 16; ++l) b_l[l] = bias[c + kLane[l]], m_l[l] = mult[c + kLane[l]];
  for (int l = 0; l < 8; ++l)
    n_even_l[l] = -right[c + kLane[2 * l]], n_odd_l[l] = -right[c + kLane[2 * l + 1]];
  const __m512i b = _mm512_load_si512(b_l), m = _mm512_load_si512(m_l);
  const __m512i n_even = _mm512_load_si512(n_even_l), n_odd = _mm512_load_si512(n_odd_l);
  const __m512i one = _mm512_set1_epi64(1), zero = _mm512_setzero_si512();
  const __m512i zp = _mm512_set1_epi32(rq.y_zero_point), lo = _mm512_set1_epi32(rq.act_min),
                hi = _mm512_set1_epi32(rq.act_max);
  const __m512i half_even = _mm512_sllv_epi64(one, _mm512_sub_epi64(n_even, one));
  const __m512i half_odd = _mm512_sllv_epi64(one, _mm512_sub_epi64(n_odd, one));
  __m128i pixels[kDepthwiseS8HwcMaxWidthX86];  // output pixel ow's 16 lanes, as int8
  for (size_t ow = s.out_w; ow < kDepthwiseS8HwcMaxWidthX86; ++ow) pixels[ow] = _mm_setzero_si128();
  for (size_t ow = 0; ow < s.out_w; ++ow) {
    const size_t at = ow * s.stride_w * cp + c;
    __m512i acc = b;
    for (int k = 0; k < 5; ++k) {
      const int ka = 2 * k, kb = 2 * k + 1;
      const __m256i xa = load16(ring_rows[ka / 3] + at + (ka % 3) * cp);
      const __m256i xb =
          k < 4 ? load16(ring_rows[kb / 3] + at + (kb % 3) * cp) : _mm256_setzero_si256();
      acc = _mm512_add_epi32(acc, _mm512_madd_epi16(pairs(xa, xb), wp[k]));
    }
    // RequantizeS32x8Lanes on 16 lanes (n = 31 + shift ≥ 32).
    const __m512i mag = _mm512_abs_epi32(acc);
    __m512i even = _mm512_mul_epu32(mag, m);
    __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(mag, 32), _mm512_srli_epi64(m, 32));
    even = _mm512_srlv_epi64(_mm512_add_epi64(even, half_even), n_even);
    odd = _mm512_srlv_epi64(_mm512_add_epi64(odd, half_odd), n_odd);
    __m512i r = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
    r = _mm512_mask_sub_epi32(r, _mm512_cmplt_epi32_mask(acc, zero), zero, r);
    r = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(r, zp), lo), hi);
    pixels[ow] = _mm512_cvtepi32_epi8(r);
  }
  StoreLanesToPlanes(pixels, s.out_w, kLane, yc, out_plane);
}
