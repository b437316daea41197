// The x86 steps of the int8 channels-innermost depthwise (conv2d_depthwise_s8_hwc_simd.h): the
// row fill into the int16 ring, the per-lane requantization, and one output row of 8 (AVX2) or
// 16 (AVX2: two halves; AVX-512: one register) channels, stored to the NCHW planes by a byte
// transposition, one store per channel instead of one per output.
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/conv/conv_scratch.h"
#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"

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
// Widest output rows the x86 steps take: AVX-512's 16-channel step (one 64-bit half per lane
// in StoreLanesToPlanes) and the AVX2 steps (8 pixels a step, any count of steps).
constexpr size_t kDepthwiseS8HwcMaxWidthX86 = 8;
constexpr size_t kDepthwiseS8HwcMaxWidthAvx2 = 24;

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
#include "kernels/simd/depthwise_s8_hwc_avx512.h"
#endif
#endif

// The per-channel constants and weights the x86 steps read from the op's scratch
// (Conv2dDepthwiseS8Hwc): cp entries each; right[c] = −(31 + shift), weights int16 [9][cp].
struct DepthwiseHwcConsts {
  const int32_t* bias;
  const int32_t* mult;
  const int64_t* right;
  const int16_t* wt;
  size_t cp;
};

// q[ow] (ow < 8) holds output pixel ow's 8 channels as int32 inside int8's range; lane l goes to
// channel l's plane, y + l·out_plane, for l < lanes. Packs and one pshufb give each 128-bit half
// 4 channels × 4 pixels channel-major, dword unpacks each channel's 8 pixels as one 64-bit lane.
// With `spill` all 8 bytes are stored: the bytes past `width` land on outputs of later rows of
// the same plane, which are written after (rows go in order and the op runs on one thread);
// else `width` bytes.
inline void StorePixelsToPlanes8(const __m256i q[8], size_t width, size_t lanes, bool spill,
                                 int8_t* y, size_t out_plane) {
  const __m256i idx = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4,
                                       8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  // Bytes of t0: [p0..p3 of channels 0..3 | of channels 4..7]; t1 the same for p4..p7.
  const __m256i t0 = _mm256_shuffle_epi8(
      _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3])), idx);
  const __m256i t1 = _mm256_shuffle_epi8(
      _mm256_packs_epi16(_mm256_packs_epi32(q[4], q[5]), _mm256_packs_epi32(q[6], q[7])), idx);
  // 64-bit lanes: lo = channels 0, 1, 4, 5; hi = 2, 3, 6, 7.
  const __m256i lo = _mm256_unpacklo_epi32(t0, t1), hi = _mm256_unpackhi_epi32(t0, t1);
  if (spill && lanes == 8) {
    const __m128i l0 = _mm256_castsi256_si128(lo), l1 = _mm256_extracti128_si256(lo, 1);
    const __m128i h0 = _mm256_castsi256_si128(hi), h1 = _mm256_extracti128_si256(hi, 1);
    const auto low = [](int8_t* d, __m128i v) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d), v);
    };
    // movhps through the builtin: _mm_storeh_pd is a C store of a double, undefined (and
    // reported by UBSan) at an address that is not a multiple of 8.
    const auto high = [](int8_t* d, __m128i v) {
      _mm_storeh_pi(reinterpret_cast<__m64*>(d), _mm_castsi128_ps(v));
    };
    low(y, l0), high(y + out_plane, l0), low(y + 2 * out_plane, h0), high(y + 3 * out_plane, h0);
    low(y + 4 * out_plane, l1), high(y + 5 * out_plane, l1), low(y + 6 * out_plane, h1);
    high(y + 7 * out_plane, h1);
    return;
  }
  alignas(32) uint64_t v[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(v), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(v + 4), hi);
  static constexpr int kAt[8] = {0, 1, 4, 5, 2, 3, 6, 7};  // channel l's lane in v
  const size_t bytes = spill ? 8 : width;
  for (size_t l = 0; l < lanes; ++l) std::memcpy(y + l * out_plane, &v[kAt[l]], bytes);
}

// Weight pairs (w_a, w_b) of taps 2k, 2k + 1 (the ninth paired with zero) for channels c..c+7.
inline void DepthwiseHwcWeightPairs8(const DepthwiseHwcConsts& k, size_t c, __m256i wp[5]) {
  for (int t = 0; t < 5; ++t) {
    const __m128i wa = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k.wt + 2 * t * k.cp + c));
    const __m128i wb =
        t < 4 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(k.wt + (2 * t + 1) * k.cp + c))
              : _mm_setzero_si128();
    wp[t] = _mm256_set_m128i(_mm_unpackhi_epi16(wa, wb), _mm_unpacklo_epi16(wa, wb));
  }
}

// The requantization constants of channels c..c+7 (RequantizeS32x8Lanes).
struct DepthwiseHwcRequant8 {
  __m256i m, n_even, n_odd, zp, lo, hi;
};
inline DepthwiseHwcRequant8 MakeDepthwiseHwcRequant8(const DepthwiseHwcConsts& k,
                                                     const GemmS8Params& rq, size_t c) {
  DepthwiseHwcRequant8 r;
  r.m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k.mult + c));
  const int64_t* n = k.right + c;
  r.n_even = _mm256_setr_epi64x(-n[0], -n[2], -n[4], -n[6]);
  r.n_odd = _mm256_setr_epi64x(-n[1], -n[3], -n[5], -n[7]);
  r.zp = _mm256_set1_epi32(rq.y_zero_point);
  r.lo = _mm256_set1_epi32(rq.act_min);
  r.hi = _mm256_set1_epi32(rq.act_max);
  return r;
}
inline __m256i Requantize8(__m256i acc, const DepthwiseHwcRequant8& r) {
  return RequantizeS32x8Lanes(acc, r.m, r.n_even, r.n_odd, r.zp, r.lo, r.hi);
}

// Output row `oh` of channels c..c+lanes−1 (lanes ≤ 8), 8 a step: pairs of taps as pmaddwd of
// interleaved int16 (x_a, x_b)·(w_a, w_b), the ninth tap paired with zero; 8 pixels at a time
// stored by StorePixelsToPlanes8. yc: the row's first output of channel c; row_at: its offset
// in the plane (oh · out_w).
inline void DepthwiseHwcRow8(const Conv2dShape& s, const int16_t* const ring_rows[3],
                             const DepthwiseHwcConsts& k, const GemmS8Params& rq, size_t c,
                             size_t lanes, size_t row_at, int8_t* yc, size_t out_plane) {
  const size_t cp = k.cp;
  __m256i wp[5];
  DepthwiseHwcWeightPairs8(k, c, wp);
  const DepthwiseHwcRequant8 r = MakeDepthwiseHwcRequant8(k, rq, c);
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k.bias + c));
  for (size_t ow0 = 0; ow0 < s.out_w; ow0 += 8) {
    const size_t width = std::min<size_t>(8, s.out_w - ow0);
    __m256i q[8];
    for (size_t i = width; i < 8; ++i) q[i] = _mm256_setzero_si256();
    for (size_t i = 0; i < width; ++i) {
      const size_t at = (ow0 + i) * s.stride_w * cp + c;
      __m256i acc = b;
      for (int t = 0; t < 5; ++t) {
        const int ta = 2 * t, tb = 2 * t + 1;
        const __m128i xa = _mm_loadu_si128(
            reinterpret_cast<const __m128i*>(ring_rows[ta / 3] + at + (ta % 3) * cp));
        const __m128i xb = t < 4 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                       ring_rows[tb / 3] + at + (tb % 3) * cp))
                                 : _mm_setzero_si128();
        const __m256i xp = _mm256_set_m128i(_mm_unpackhi_epi16(xa, xb), _mm_unpacklo_epi16(xa, xb));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(xp, wp[t]));
      }
      q[i] = Requantize8(acc, r);
    }
    StorePixelsToPlanes8(q, width, lanes, row_at + ow0 + 8 <= out_plane, yc + ow0, out_plane);
  }
}

#if !defined(__AVX512BW__)
// 16 channels c..c+15 of output row `oh` with 256-bit loads: the in-lane unpacks of two rows of
// 16 int16 give pairs of channels {0-3, 8-11} and {4-7, 12-15}; one vperm2i128 each puts the
// sums back in channel order (c..c+7, c+8..c+15) before the bias and the requantization.
inline void DepthwiseHwcRow16Avx2(const Conv2dShape& s, const int16_t* const ring_rows[3],
                                  const DepthwiseHwcConsts& k, const GemmS8Params& rq, size_t c,
                                  size_t row_at, int8_t* yc, size_t out_plane) {
  const size_t cp = k.cp;
  const auto load16 = [](const int16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  };
  __m256i wl[5], wh[5];
  for (int t = 0; t < 5; ++t) {
    const __m256i wa = load16(k.wt + 2 * t * cp + c);
    const __m256i wb = t < 4 ? load16(k.wt + (2 * t + 1) * cp + c) : _mm256_setzero_si256();
    wl[t] = _mm256_unpacklo_epi16(wa, wb);
    wh[t] = _mm256_unpackhi_epi16(wa, wb);
  }
  const DepthwiseHwcRequant8 r0 = MakeDepthwiseHwcRequant8(k, rq, c);
  const DepthwiseHwcRequant8 r1 = MakeDepthwiseHwcRequant8(k, rq, c + 8);
  const __m256i b0 = load16(reinterpret_cast<const int16_t*>(k.bias + c));
  const __m256i b1 = load16(reinterpret_cast<const int16_t*>(k.bias + c + 8));
  for (size_t ow0 = 0; ow0 < s.out_w; ow0 += 8) {
    const size_t width = std::min<size_t>(8, s.out_w - ow0);
    __m256i q0[8], q1[8];
    for (size_t i = width; i < 8; ++i) q0[i] = q1[i] = _mm256_setzero_si256();
    for (size_t i = 0; i < width; ++i) {
      const size_t at = (ow0 + i) * s.stride_w * cp + c;
      __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
      for (int t = 0; t < 5; ++t) {
        const int ta = 2 * t, tb = 2 * t + 1;
        const __m256i xa = load16(ring_rows[ta / 3] + at + (ta % 3) * cp);
        const __m256i xb =
            t < 4 ? load16(ring_rows[tb / 3] + at + (tb % 3) * cp) : _mm256_setzero_si256();
        lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), wl[t]));
        hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), wh[t]));
      }
      q0[i] = Requantize8(_mm256_add_epi32(_mm256_permute2x128_si256(lo, hi, 0x20), b0), r0);
      q1[i] = Requantize8(_mm256_add_epi32(_mm256_permute2x128_si256(lo, hi, 0x31), b1), r1);
    }
    const bool spill = row_at + ow0 + 8 <= out_plane;
    StorePixelsToPlanes8(q0, width, 8, spill, yc + ow0, out_plane);
    StorePixelsToPlanes8(q1, width, 8, spill, yc + 8 * out_plane + ow0, out_plane);
  }
}
#endif

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
