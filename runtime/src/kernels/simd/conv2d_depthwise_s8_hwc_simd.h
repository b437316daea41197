// The int8 depthwise convolution channels-innermost (kernels::ConvS8UsesDepthwiseHwc: undilated
// 3×3, strides 1 and 2, at least 8 channels). Each input row is moved once into a ring of three
// padded rows of int16 [pitch][cp] in the op's scratch (NCHW → HWC, the input's zero point in the
// padding), the weights once into int16 [9][cp]; every output pixel then takes 8 channels per
// step (NEON: conv2d_depthwise_s8_hwc_neon.h, nine smlal/smlal2 pairs, several pixels a step;
// x86: five vpmaddwd over interleaved pairs of taps), requantized with each lane's own
// multiplier and shift, stored to the NCHW output. No padded column is computed and dropped, as
// the per-channel planes do. The same integer sums and the reference's rounding: the bits of
// ref::Conv2dDepthwiseS8. Returns false where the level has no such kernel (the caller then runs
// the planes).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/conv/conv_scratch.h"
#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"

#if defined(__ARM_NEON)
#include <arm_neon.h>

#include "kernels/simd/conv2d_depthwise_s8_hwc_neon.h"
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

#if defined(__AVX2__)
// Padded row p (input row p − pad_top) into `row` ([pitch][cp] int16): zero point outside the
// input, the lanes past in_c left as they are (their weights are 0).
inline void FillDepthwiseHwcRow(const Conv2dShape& s, const DepthwiseS8Hwc& g, const int8_t* x,
                                int8_t zp, size_t p, int16_t* row) {
  const long ih = static_cast<long>(p) - static_cast<long>(s.pad_top);
  const size_t c_n = s.in_c, cp = g.cp;
  // Columns j read input column j − pad_left: [lo, hi) lie inside.
  const size_t lo = std::min(s.pad_left, g.pitch);
  const size_t hi = std::min(g.pitch, s.pad_left + s.in_w);
  const bool inside_row = ih >= 0 && ih < static_cast<long>(s.in_h);
  for (size_t j = 0; j < g.pitch; ++j) {
    if (inside_row && j >= lo && j < hi) continue;
    int16_t* d = row + j * cp;
    for (size_t c = 0; c < c_n; ++c) d[c] = zp;
  }
  if (!inside_row || hi <= lo) return;
  const size_t plane = s.in_h * s.in_w;
  const int8_t* src = x + static_cast<size_t>(ih) * s.in_w + (lo - s.pad_left);
  int16_t* dst = row + lo * cp;
  const size_t n = hi - lo;
  // 8 channels × 8 columns a step: an 8 × 8 byte transposition (three unpack stages), each
  // column's 8 channels widened to int16 and stored as one register. A row under 8 columns
  // reads 8 bytes per channel where they lie inside X and stores its n columns.
  const int8_t* x_end = x + c_n * plane;
  size_t c = 0;
  for (; c + 8 <= c_n; c += 8) {
    const int8_t* sc = src + c * plane;
    int16_t* dc = dst + c;
    size_t j = 0;
    for (; j < n && (j + 8 <= n || sc + 7 * plane + j + 8 <= x_end); j += 8) {
      __m128i r[8];
      for (size_t i = 0; i < 8; ++i)
        r[i] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(sc + i * plane + j));
      const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
      const __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
      const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
      const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
      const __m128i cols[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2),
                               _mm_unpacklo_epi32(b1, b3), _mm_unpackhi_epi32(b1, b3)};
      const size_t count = std::min<size_t>(8, n - j);
      for (size_t k = 0; k < count; ++k) {
        const __m128i col = k % 2 == 0 ? cols[k / 2] : _mm_srli_si128(cols[k / 2], 8);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dc + (j + k) * cp), _mm_cvtepi8_epi16(col));
      }
    }
    for (; j < n; ++j)
      for (size_t i = 0; i < 8; ++i) dc[j * cp + i] = sc[i * plane + j];
  }
  for (; c < c_n; ++c) {
    const int8_t* sc = src + c * plane;
    int16_t* dc = dst + c;
    for (size_t j = 0; j < n; ++j) dc[j * cp] = sc[j];
  }
}
#endif

#if defined(__AVX2__)
constexpr size_t kDepthwiseS8HwcMaxWidthX86 = 8;

// RequantizeS8 of eight int32 lanes with each lane's multiplier m and n = 31 + shift ≥ 32
// (n_even: the counts of lanes 0, 2, 4, 6 as 64-bit lanes, n_odd of 1, 3, 5, 7): |acc|·M as
// unsigned 64-bit products (vpmuludq on the even and the odd lanes), + 2^(n−1), >> n (below
// 2^30 for n ≥ 32), the sign of acc put back, + zero point, clamped.
inline __m256i RequantizeS32x8Lanes(__m256i acc, __m256i m, __m256i n_even, __m256i n_odd,
                                    __m256i zp, __m256i lo, __m256i hi) {
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256i mag = _mm256_abs_epi32(acc);
  __m256i even = _mm256_mul_epu32(mag, m);
  __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(mag, 32), _mm256_srli_epi64(m, 32));
  even = _mm256_srlv_epi64(
      _mm256_add_epi64(even, _mm256_sllv_epi64(one, _mm256_sub_epi64(n_even, one))), n_even);
  odd = _mm256_srlv_epi64(
      _mm256_add_epi64(odd, _mm256_sllv_epi64(one, _mm256_sub_epi64(n_odd, one))), n_odd);
  const __m256i r = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  const __m256i q = _mm256_add_epi32(_mm256_sign_epi32(r, acc), zp);
  return _mm256_min_epi32(_mm256_max_epi32(q, lo), hi);
}

#if defined(__AVX512BW__)
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
#endif
#endif

template <class Arch>
bool Conv2dDepthwiseS8Hwc(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                          int8_t x_zero_point, const GemmS8Params& rq, int8_t* scratch, int8_t* y) {
#if defined(__ARM_NEON) || defined(__AVX2__)
  if (!ConvS8UsesDepthwiseHwc(s) || rq.depthwise_scratch_bytes < ConvS8DepthwiseHwcBytes(s))
    return false;
#if !defined(__ARM_NEON)
  // On x86 only small planes: per op on an AMD EPYC (AVX-512, no VNNI), MobileNetV2 int8, the
  // 7 × 7 depthwise convs 0.57–0.90 of the planes' time, 14 × 14 1.5×, stride 2 into 56 × 56
  // 2.6× and into 112 × 112 … 56 × 56 3.2× (measured with a scalar row transpose).
  if (s.out_w > kDepthwiseS8HwcMaxWidthX86) return false;
  // The x86 requantization keeps 32-bit results: every channel's real multiplier below 1/2.
  for (size_t c = 0; c < s.in_c; ++c)
    if (rq.shift[c] < 1) return false;
#endif
  const DepthwiseS8Hwc g = DepthwiseS8HwcGeometry(s);
  const size_t cp = g.cp, out_plane = s.out_h * s.out_w;
#if defined(__ARM_NEON)
  const hwc_neon::Group* groups = reinterpret_cast<const hwc_neon::Group*>(scratch);
  // The ring's lanes past in_c keep whatever the scratch held: their weights are 0.
  int16_t* ring = reinterpret_cast<int16_t*>(hwc_neon::PrepareGroups(s, w, rq, cp, scratch));
  hwc_neon::FillRingPadding(g.pitch, cp, std::min(s.pad_left, g.pitch),
                            std::min(g.pitch, s.pad_left + s.in_w), x_zero_point, ring,
                            g.row_values);
#else
  const size_t st = s.stride_w, c_n = s.in_c;
  // Per channel (lanes past in_c: bias 0, multiplier 2^30, shift 0): bias, multiplier, right
  // shift, then the weights and the ring (ConvS8DepthwiseHwcBytes).
  int32_t* bias = reinterpret_cast<int32_t*>(scratch);
  int32_t* mult = bias + cp;
  int64_t* right = reinterpret_cast<int64_t*>(mult + cp);
  int16_t* wt = reinterpret_cast<int16_t*>(right + cp);
  for (size_t c = 0; c < cp; ++c) {
    const bool real = c < c_n;
    bias[c] = real && rq.bias != nullptr ? rq.bias[c] : 0;
    mult[c] = real ? rq.multiplier[c] : 1 << 30;
    right[c] = -(31 + int64_t{real ? rq.shift[c] : 0});
  }
  int16_t* ring = wt + g.weight_values;
  std::memset(wt, 0, (g.weight_values + 3 * g.row_values) * sizeof(int16_t));
  for (size_t c = 0; c < c_n; ++c)
    for (size_t t = 0; t < 9; ++t) wt[t * cp + c] = w[c * 9 + t];
#endif
  size_t filled = 0;  // padded rows [0, filled) have been moved into the ring
  for (size_t oh = 0; oh < s.out_h; ++oh) {
    const size_t p0 = oh * s.stride_h;
    for (size_t p = std::max(filled, p0); p < p0 + 3; ++p) {
#if defined(__ARM_NEON)
      hwc_neon::FillRow(s, g, x, x_zero_point, p, ring + (p % 3) * g.row_values);
#else
      FillDepthwiseHwcRow(s, g, x, x_zero_point, p, ring + (p % 3) * g.row_values);
#endif
    }
    filled = p0 + 3;
    const int16_t* r0 = ring + (p0 % 3) * g.row_values;
    const int16_t* r1 = ring + ((p0 + 1) % 3) * g.row_values;
    const int16_t* r2 = ring + ((p0 + 2) % 3) * g.row_values;
#if defined(__ARM_NEON)
    const int16_t* const rows[3] = {r0, r1, r2};
    if (s.stride_w == 1)
      hwc_neon::OutputRow<1>(s, groups, rows, cp, rq, y + oh * s.out_w, out_plane);
    else
      hwc_neon::OutputRow<2>(s, groups, rows, cp, rq, y + oh * s.out_w, out_plane);
#else
    size_t c_from = 0;
#if defined(__AVX512BW__)
    const int16_t* const ring_rows[3] = {r0, r1, r2};
    for (; c_from + 16 <= c_n; c_from += 16)
      DepthwiseHwcRow16(s, ring_rows, cp, wt, bias, mult, right, rq, c_from,
                        y + c_from * out_plane + oh * s.out_w, out_plane);
#endif
    for (size_t c = c_from; c < c_n; c += 8) {
      const size_t lanes = std::min<size_t>(8, c_n - c);
      int8_t* yc = y + c * out_plane + oh * s.out_w;
      // x86 (AVX2 and up): pairs of taps as pmaddwd of interleaved int16 (x_a, x_b)·(w_a, w_b),
      // the ninth tap paired with zero.
      __m256i wp[5];
      for (int k = 0; k < 5; ++k) {
        const __m128i wa = _mm_loadu_si128(reinterpret_cast<const __m128i*>(wt + 2 * k * cp + c));
        const __m128i wb =
            k < 4 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(wt + (2 * k + 1) * cp + c))
                  : _mm_setzero_si128();
        wp[k] = _mm256_set_m128i(_mm_unpackhi_epi16(wa, wb), _mm_unpacklo_epi16(wa, wb));
      }
      const __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mult + c));
      const __m256i n_even =
          _mm256_setr_epi64x(-right[c], -right[c + 2], -right[c + 4], -right[c + 6]);
      const __m256i n_odd =
          _mm256_setr_epi64x(-right[c + 1], -right[c + 3], -right[c + 5], -right[c + 7]);
      const __m256i zp = _mm256_set1_epi32(rq.y_zero_point), lo = _mm256_set1_epi32(rq.act_min),
                    hi = _mm256_set1_epi32(rq.act_max);
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + c));
      for (size_t ow = 0; ow < s.out_w; ++ow) {
        const size_t at = ow * st * cp + c;
        const int16_t* rows[3] = {r0 + at, r1 + at, r2 + at};
        __m256i acc = b;
        for (int k = 0; k < 5; ++k) {
          const int ka = 2 * k, kb = 2 * k + 1;
          const __m128i xa =
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[ka / 3] + (ka % 3) * cp));
          const __m128i xb =
              k < 4
                  ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[kb / 3] + (kb % 3) * cp))
                  : _mm_setzero_si128();
          const __m256i xp =
              _mm256_set_m128i(_mm_unpackhi_epi16(xa, xb), _mm_unpacklo_epi16(xa, xb));
          acc = _mm256_add_epi32(acc, _mm256_madd_epi16(xp, wp[k]));
        }
        alignas(32) int32_t q[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(q),
                           RequantizeS32x8Lanes(acc, m, n_even, n_odd, zp, lo, hi));
        int8_t* yo = yc + ow;
        if (lanes == 8) {  // a constant count: unrolled, no compare per lane
          for (size_t l = 0; l < 8; ++l) yo[l * out_plane] = static_cast<int8_t>(q[l]);
        } else {
          for (size_t l = 0; l < lanes; ++l) yo[l * out_plane] = static_cast<int8_t>(q[l]);
        }
      }
    }
#endif
  }
  return true;
#else
  (void)s, (void)x, (void)w, (void)x_zero_point, (void)rq, (void)scratch, (void)y;
  return false;
#endif
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
