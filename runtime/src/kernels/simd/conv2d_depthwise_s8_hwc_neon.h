// The int8 3×3 depthwise convolution channels-innermost on NEON (AArch64 and ARMv7; the entry
// point, the x86 kernel and the row fill are in conv2d_depthwise_s8_hwc_simd.h). Per output row
// and group of 8 channels (one int16x8 register per pixel):
//   acc[p][c] = bias[c] + Σ_{r,t<3} ring[r][p·stride + t][c]·w[3r + t][c]
// for P pixels a step (4 on AArch64, sharing each loaded column between the pixels that read it;
// 1 on ARMv7, whose 16 q registers the nine weights nearly fill), by smlal/smlal2 into int32,
// then RequantizeS8 per lane with the channel's own multiplier M and shift:
// - the doubling form, where every lane of the group has shift ≥ 1 (n = 31 + shift ≥ 32) and its
//   bias keeps |acc| below 2^31 − 1: sqdmulh(|acc|, M) = floor(|acc|·M / 2^31), then a rounding
//   shift right by shift: floor((floor(v / 2^31) + 2^(shift−1)) / 2^shift) equals
//   floor((v + 2^(n−1)) / 2^n) since 2^(n−1) is a multiple of 2^31, the rule's |value| rounded
//   half up; for acc < 0 the shift takes ~d = −d − 1 of d = sqdmulh(…), which rounds to −(d's)
//   (five instructions per four lanes);
// - else the 64-bit magnitude form of neon_requant::RequantizeS8x8Lanes.
// Both give ref::Conv2dDepthwiseS8's bits. On AArch64 the four pixels of a channel go out as one
// 32-bit lane store (four consecutive bytes of its NCHW row) after a byte transposition.
#pragma once
#include <arm_neon.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/conv/conv_scratch.h"
#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"
#include "kernels/simd/requant_neon.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS::hwc_neon {

#if defined(__aarch64__)
constexpr size_t kPixels = 4;
#else
constexpr size_t kPixels = 1;
#endif
// Accumulators of a group with |bias| below this stay in (INT32_MIN, INT32_MAX]: nine products
// of at most 128·128.
constexpr int32_t kDoublingBiasBound = INT32_MAX - 9 * 128 * 128;

// The doubling form's constants of a group of 8 lanes.
struct DoublingRequant {
  int32x4_t m0, m1, neg_shift0, neg_shift1;
  int16x8_t zp, lo, hi;
};
// The rounding shift of ~d = −d − 1 for acc < 0 is −(that of d): neon_rq::RoundShift.
inline int32x4_t RoundShiftDoubling(int32x4_t acc, int32x4_t m, int32x4_t neg_shift) {
  const int32x4_t sign = vshrq_n_s32(acc, 31);
  return vrshlq_s32(veorq_s32(vqdmulhq_s32(vabsq_s32(acc), m), sign), neg_shift);
}
// Eight results before the final narrowing: clamped, so each is one int8 in an int16 lane.
inline int16x8_t Requantize(int32x4_t a0, int32x4_t a1, const DoublingRequant& r) {
  const int16x8_t h = vcombine_s16(vqmovn_s32(RoundShiftDoubling(a0, r.m0, r.neg_shift0)),
                                   vqmovn_s32(RoundShiftDoubling(a1, r.m1, r.neg_shift1)));
  return vminq_s16(vmaxq_s16(vqaddq_s16(h, r.zp), r.lo), r.hi);
}
// The signed form of the doubling form, where besides its conditions every lane's M has fewer
// than `shift` trailing zero bits: d = sqdmulh(acc, M) = floor(v / 2^31) of the signed v = acc·M,
// and the rounding shift right by shift gives floor((v + 2^(n−1)) / 2^n), v / 2^n rounded half
// up. That is the rule's half away from zero except at a tie of a negative v, v ≡ 2^(n−1)
// (mod 2^n): v would have exactly n − 1 = 30 + shift trailing zero bits, tz(acc) + tz(M), with
// tz(acc) ≤ 30 (0 < |acc| < 2^31) and tz(M) < shift — no such v. Two instructions per four lanes.
struct SignedRequant : DoublingRequant {};
// A group's constants (8 lanes of mult and neg_shift) in the form R, DoublingRequant or
// SignedRequant: the same fields, the type picks Requantize.
template <class R>
inline R GroupRequant(const int32_t* mult, const int32_t* neg_shift, int16x8_t zp, int16x8_t lo,
                      int16x8_t hi) {
  R r;
  r.m0 = vld1q_s32(mult);
  r.m1 = vld1q_s32(mult + 4);
  r.neg_shift0 = vld1q_s32(neg_shift);
  r.neg_shift1 = vld1q_s32(neg_shift + 4);
  r.zp = zp;
  r.lo = lo;
  r.hi = hi;
  return r;
}
inline int16x8_t Requantize(int32x4_t a0, int32x4_t a1, const SignedRequant& r) {
  const int16x8_t h = vcombine_s16(vqmovn_s32(vrshlq_s32(vqdmulhq_s32(a0, r.m0), r.neg_shift0)),
                                   vqmovn_s32(vrshlq_s32(vqdmulhq_s32(a1, r.m1), r.neg_shift1)));
  return vminq_s16(vmaxq_s16(vqaddq_s16(h, r.zp), r.lo), r.hi);
}
// Whether M has fewer than `shift` trailing zero bits (shift ≥ 1): M mod 2^shift ≠ 0.
inline bool SignedFormLane(int32_t multiplier, int32_t shift) {
  return shift >= 1 && shift <= 31 &&
         (static_cast<uint32_t>(multiplier) & ((uint32_t{1} << shift) - 1u)) != 0;
}
inline int16x8_t Requantize(int32x4_t a0, int32x4_t a1, const neon_requant::LaneRequant& r) {
  return vmovl_s8(neon_requant::RequantizeS8x8Lanes(a0, a1, r));
}

// lo += x[0..3]·w[0..3], hi += x[4..7]·w[4..7] (smlal, smlal2). On AArch64 in assembly: GCC
// copies the low half of each weight into a register of its own for smlal, which with four
// pixels' accumulators spills the weights to the stack.
inline void MultiplyAccumulate(int32x4_t& lo, int32x4_t& hi, int16x8_t x, int16x8_t w) {
#if defined(__aarch64__)
  asm("smlal %0.4s, %2.4h, %3.4h\n\tsmlal2 %1.4s, %2.8h, %3.8h"
      : "+w"(lo), "+w"(hi)
      : "w"(x), "w"(w));
#else
  lo = vmlal_s16(lo, vget_low_s16(x), vget_low_s16(w));
  hi = vmlal_s16(hi, vget_high_s16(x), vget_high_s16(w));
#endif
}

// acc[p] (lanes 0..3 in lo, 4..7 in hi) += the 3×3 window of pixel p, rows[r] at its first column.
template <size_t P, size_t St>
inline void Accumulate(const int16_t* const (&rows)[3], size_t cp, const int16x8_t (&wv)[9],
                       int32x4_t (&lo)[P], int32x4_t (&hi)[P]) {
  constexpr size_t kCols = (P - 1) * St + 3;
  for (size_t r = 0; r < 3; ++r) {
    int16x8_t xc[kCols];
    const int16_t* at = rows[r];
    for (size_t j = 0; j < kCols; ++j, at += cp) xc[j] = vld1q_s16(at);
    for (size_t p = 0; p < P; ++p)
      for (size_t t = 0; t < 3; ++t)
        MultiplyAccumulate(lo[p], hi[p], xc[p * St + t], wv[3 * r + t]);
  }
}

#if defined(__aarch64__)
// The 16-bit lanes L..7 of v to at + l·plane, l = L..7.
template <int L>
inline void StoreLane16(int16x8_t v, int8_t* at, size_t plane) {
  if constexpr (L < 8) {
    vst1q_lane_s16(reinterpret_cast<int16_t*>(at + L * plane), v, L);
    StoreLane16<L + 1>(v, at, plane);
  }
}
// The low bytes of the 16-bit lanes L..7 of v (bytes 2l) to at + l·plane, l = L..7.
template <int L>
inline void StoreLane8(int8x16_t v, int8_t* at, size_t plane) {
  if constexpr (L < 8) {
    vst1q_lane_s8(at + L * plane, v, 2 * L);
    StoreLane8<L + 1>(v, at, plane);
  }
}
#endif

// Lane l of the P pixels' results h[0..P) to yo[l·plane + 0..P).
template <size_t P>
[[gnu::always_inline]] inline void StoreLanes(const int16x8_t (&h)[P], int8_t* yo, size_t plane,
                                              size_t lanes) {
#if defined(__aarch64__)
  if constexpr (P == 4) {
    if (lanes == 8) {
      // Bytes of pixels 0 and 2, 1 and 3 (uzp1 narrows), interleaved into a word per channel:
      // w[0] holds channels 0..3, w[1] 4..7, each as pixels 0, 1, 2, 3.
      const int8x16_t x02 = vuzp1q_s8(vreinterpretq_s8_s16(h[0]), vreinterpretq_s8_s16(h[2]));
      const int8x16_t x13 = vuzp1q_s8(vreinterpretq_s8_s16(h[1]), vreinterpretq_s8_s16(h[3]));
      const int16x8_t a = vreinterpretq_s16_s8(vzip1q_s8(x02, x13));
      const int16x8_t b = vreinterpretq_s16_s8(vzip2q_s8(x02, x13));
      const int32x4_t w0 = vreinterpretq_s32_s16(vzip1q_s16(a, b));
      const int32x4_t w1 = vreinterpretq_s32_s16(vzip2q_s16(a, b));
      int8_t* at = yo;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w0, 0), at += plane;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w0, 1), at += plane;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w0, 2), at += plane;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w0, 3), at += plane;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w1, 0), at += plane;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w1, 1), at += plane;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w1, 2), at += plane;
      vst1q_lane_s32(reinterpret_cast<int32_t*>(at), w1, 3);
      return;
    }
  }
  if constexpr (P <= 3) {
    if (lanes == 8) {
      // Each channel's bytes straight from the registers, no copy through memory: pixels 0 and 1
      // as one 16-bit lane (trn1 pairs their low bytes), pixel 2 or a lone pixel 0 as a byte
      // lane (the low byte of its 16-bit lane).
      int8_t* at = yo;
      constexpr size_t kSingle = P == 2 ? 0 : P - 1;
      if constexpr (P >= 2) {
        const int16x8_t pairs =
            vreinterpretq_s16_s8(vtrn1q_s8(vreinterpretq_s8_s16(h[0]), vreinterpretq_s8_s16(h[1])));
        StoreLane16<0>(pairs, at, plane);
      }
      if constexpr (P != 2) StoreLane8<0>(vreinterpretq_s8_s16(h[kSingle]), at + P - 1, plane);
      return;
    }
  }
#endif
  int8_t bytes[P][8];
  for (size_t p = 0; p < P; ++p) vst1_s8(bytes[p], vmovn_s16(h[p]));
  if (lanes == 8 && P == 1) {
    int8_t* at = yo;
    for (size_t l = 0; l < 8; ++l, at += plane) *at = bytes[0][l];
    return;
  }
  for (size_t l = 0; l < lanes; ++l)
    for (size_t p = 0; p < P; ++p) yo[l * plane + p] = bytes[p][l];
}

// One output row of one group: P pixels a step, the rest one at a time.
template <size_t St, class Rq>
inline void RowGroup(const int16_t* const (&ring)[3], size_t cp, const int16x8_t (&wv)[9],
                     int32x4_t b_lo, int32x4_t b_hi, const Rq& rq, size_t out_w, int8_t* yc,
                     size_t plane, size_t lanes) {
  size_t ow = 0;
  if constexpr (kPixels > 1) {
    for (; ow + kPixels <= out_w; ow += kPixels) {
      const size_t at = ow * St * cp;
      const int16_t* const rows[3] = {ring[0] + at, ring[1] + at, ring[2] + at};
      int32x4_t lo[kPixels], hi[kPixels];
      for (size_t p = 0; p < kPixels; ++p) lo[p] = b_lo, hi[p] = b_hi;
      Accumulate<kPixels, St>(rows, cp, wv, lo, hi);
      int16x8_t q[kPixels];
      for (size_t p = 0; p < kPixels; ++p) q[p] = Requantize(lo[p], hi[p], rq);
      StoreLanes<kPixels>(q, yc + ow, plane, lanes);
    }
  }
  for (; ow < out_w; ++ow) {
    const size_t at = ow * St * cp;
    const int16_t* const rows[3] = {ring[0] + at, ring[1] + at, ring[2] + at};
    int32x4_t lo[1] = {b_lo}, hi[1] = {b_hi};
    Accumulate<1, St>(rows, cp, wv, lo, hi);
    const int16x8_t q[1] = {Requantize(lo[0], hi[0], rq)};
    StoreLanes<1>(q, yc + ow, plane, lanes);
  }
}

// Each group of 8 channels keeps its weights and constants together at the head of the scratch
// (34·cp bytes of ConvS8DepthwiseHwcBytes' 16·cp + 9·cp·2): int16 weights [9][8], then int32
// bias, multiplier, −shift (the doubling form's; +1 in every lane of a group without it) and
// −(31 + shift) (the 64-bit form's), 8 each; lanes past in_c with weights 0, bias 0,
// multiplier 2^30 and shift 1 (computed, never stored).
constexpr size_t kGroupBytes = 9 * 8 * sizeof(int16_t) + 4 * 8 * sizeof(int32_t);
struct Group {
  int16_t w[9][8];
  int32_t bias[8], mult[8], neg_shift[8], right[8];
};
static_assert(sizeof(Group) == kGroupBytes, "a group is its weights and 32 int32 constants");

// Fills the groups; returns the first byte past them (the ring).
inline int8_t* PrepareGroups(const Conv2dShape& s, const int8_t* w, const GemmS8Params& rq,
                             size_t cp, int8_t* scratch) {
  Group* groups = reinterpret_cast<Group*>(scratch);
  for (size_t c0 = 0; c0 < cp; c0 += 8) {
    Group& g = groups[c0 / 8];
    bool doubling = true, signed_form = true;
    for (size_t l = 0; l < 8; ++l) {
      const size_t c = c0 + l;
      const bool real = c < s.in_c;
      const int32_t shift = real ? rq.shift[c] : 1;
      for (size_t t = 0; t < 9; ++t) g.w[t][l] = real ? w[c * 9 + t] : 0;
      g.bias[l] = real && rq.bias != nullptr ? rq.bias[c] : 0;
      g.mult[l] = real ? rq.multiplier[c] : 1 << 30;
      g.right[l] = -(31 + shift);
      g.neg_shift[l] = -shift;
      doubling = doubling && shift >= 1 && g.bias[l] >= -kDoublingBiasBound &&
                 g.bias[l] <= kDoublingBiasBound;
      signed_form = signed_form && (!real || SignedFormLane(g.mult[l], shift));
    }
    if (!doubling)
      for (int32_t& n : g.neg_shift) n = 1;
    else if (signed_form)
      g.right[0] = 0;  // the signed form (the 64-bit form's counts are never 0)
  }
  return scratch + cp / 8 * kGroupBytes;
}

// One column of eight channels (int8 bytes) in the ring's element type: int16 for the smlal
// kernel here, int8 for sdot's (conv2d_depthwise_s8_hwc_sdot_neon64.h).
inline void StoreColumn8(int16_t* d, int8x8_t v) { vst1q_s16(d, vmovl_s8(v)); }
inline void StoreColumn8(int8_t* d, int8x8_t v) { vst1_s8(d, v); }

// Columns of the ring's rows outside [lo, hi), the padded columns every row shares: the zero
// point, once for the ring's rows (the fill below writes only [lo, hi)).
template <class T>
inline void FillRingPadding(size_t pitch, size_t cp, size_t lo, size_t hi, int8_t zp, T* ring,
                            size_t row_values, size_t ring_rows = 3) {
  const int8x8_t z = vdup_n_s8(zp);
  for (size_t r = 0; r < ring_rows; ++r)
    for (size_t j = 0; j < pitch; ++j) {
      if (j >= lo && j < hi) continue;
      T* d = ring + r * row_values + j * cp;
      for (size_t c = 0; c < cp; c += 8) StoreColumn8(d + c, z);
    }
}

// zip1 and zip2 (ARMv7: the two halves of one vzip).
#if defined(__aarch64__)
inline int8x16x2_t Zip(int8x16_t a, int8x16_t b) { return {{vzip1q_s8(a, b), vzip2q_s8(a, b)}}; }
inline int16x8x2_t Zip(int16x8_t a, int16x8_t b) { return {{vzip1q_s16(a, b), vzip2q_s16(a, b)}}; }
inline int32x4x2_t Zip(int32x4_t a, int32x4_t b) { return {{vzip1q_s32(a, b), vzip2q_s32(a, b)}}; }
#else
inline int8x16x2_t Zip(int8x16_t a, int8x16_t b) { return vzipq_s8(a, b); }
inline int16x8x2_t Zip(int16x8_t a, int16x8_t b) { return vzipq_s16(a, b); }
inline int32x4x2_t Zip(int32x4_t a, int32x4_t b) { return vzipq_s32(a, b); }
#endif

// Columns col[0..n) (n ≤ 8) of eight channels' rows (rows k at src + k·plane) into dst[j·cp + 0..8)
// (StoreColumn8: int16 or int8): an 8 × 8 byte transposition in three zip stages over q
// registers (channels k and k + 4 share one), then each column stored. Reads 8 bytes per channel.
template <class T>
inline void TransposeColumns8(const int8_t* src, size_t plane, size_t n, T* dst, size_t cp) {
  int8x16_t r[4];
  for (size_t k = 0; k < 4; ++k)
    r[k] = vcombine_s8(vld1_s8(src + k * plane), vld1_s8(src + (k + 4) * plane));
  // t01: channels 0,1 of columns 0..7 as byte pairs, then 4,5; t23: 2,3 and 6,7.
  const int8x16x2_t t01 = Zip(r[0], r[1]), t23 = Zip(r[2], r[3]);
  // u0: channels 0..3 of columns 0..3 and 4..7 (val[0], val[1]); u1: channels 4..7.
  const int16x8x2_t u0 = Zip(vreinterpretq_s16_s8(t01.val[0]), vreinterpretq_s16_s8(t23.val[0]));
  const int16x8x2_t u1 = Zip(vreinterpretq_s16_s8(t01.val[1]), vreinterpretq_s16_s8(t23.val[1]));
  // w[q]: columns 2q and 2q + 1, eight channels each.
  const int32x4x2_t w03 = Zip(vreinterpretq_s32_s16(u0.val[0]), vreinterpretq_s32_s16(u1.val[0]));
  const int32x4x2_t w47 = Zip(vreinterpretq_s32_s16(u0.val[1]), vreinterpretq_s32_s16(u1.val[1]));
  const int8x16_t w[4] = {vreinterpretq_s8_s32(w03.val[0]), vreinterpretq_s8_s32(w03.val[1]),
                          vreinterpretq_s8_s32(w47.val[0]), vreinterpretq_s8_s32(w47.val[1])};
  if (n == 8) {
    for (size_t q = 0; q < 4; ++q) {
      StoreColumn8(dst + 2 * q * cp, vget_low_s8(w[q]));
      StoreColumn8(dst + (2 * q + 1) * cp, vget_high_s8(w[q]));
    }
    return;
  }
  for (size_t j = 0; j < n; ++j) {
    const int8x16_t v = w[j / 2];
    StoreColumn8(dst + j * cp, j % 2 == 0 ? vget_low_s8(v) : vget_high_s8(v));
  }
}

// Padded row p (input row p − pad_top) into `row` ([pitch][cp] of T): the zero point in every
// column of a row outside the input, else columns [lo, hi) from the input (the others hold the
// zero point already, FillRingPadding); lanes past in_c are left as they are (their weights
// are 0).
template <class T>
inline void FillRow(const Conv2dShape& s, const DepthwiseS8Hwc& g, const int8_t* x, int8_t zp,
                    size_t p, T* row) {
  const long ih = static_cast<long>(p) - static_cast<long>(s.pad_top);
  const size_t c_n = s.in_c, cp = g.cp;
  const size_t lo = std::min(s.pad_left, g.pitch);
  const size_t hi = std::min(g.pitch, s.pad_left + s.in_w);
  if (ih < 0 || ih >= static_cast<long>(s.in_h) || hi <= lo) {
    const int8x8_t z = vdup_n_s8(zp);
    for (size_t j = 0; j < g.pitch; ++j)
      for (size_t c = 0; c < cp; c += 8) StoreColumn8(row + j * cp + c, z);
    return;
  }
  const size_t plane = s.in_h * s.in_w, n = hi - lo;
  const int8_t* src = x + static_cast<size_t>(ih) * s.in_w + (lo - s.pad_left);
  T* dst = row + lo * cp;
  // Eight columns a step read 8 bytes of each channel's row: up to 7 past the row (the next
  // row, or the next channel's plane), never past the input, else the scalar copy.
  const int8_t* x_end = x + c_n * plane;
  size_t c = 0;
  for (; c + 8 <= c_n; c += 8) {
    const int8_t* sc = src + c * plane;
    size_t j = 0;
    for (; j < n && sc + 7 * plane + j + 8 <= x_end; j += 8)
      TransposeColumns8(sc + j, plane, std::min<size_t>(8, n - j), dst + j * cp + c, cp);
    for (; j < n; ++j)
      for (size_t k = 0; k < 8; ++k) dst[j * cp + c + k] = sc[k * plane + j];
  }
  for (; c < c_n; ++c)
    for (size_t j = 0; j < n; ++j) dst[j * cp + c] = src[c * plane + j];
}

// One output row over every group of 8 channels, ring rows r0..r2 at the window's top.
template <size_t St>
inline void OutputRow(const Conv2dShape& s, const Group* groups, const int16_t* const (&ring)[3],
                      size_t cp, const GemmS8Params& rq, int8_t* y_row, size_t plane) {
  const int16x8_t zp = vdupq_n_s16(static_cast<int16_t>(rq.y_zero_point));
  const int16x8_t act_min = vdupq_n_s16(static_cast<int16_t>(rq.act_min));
  const int16x8_t act_max = vdupq_n_s16(static_cast<int16_t>(rq.act_max));
  for (size_t c = 0; c < s.in_c; c += 8) {
    const Group& g = groups[c / 8];
    const size_t lanes = std::min<size_t>(8, s.in_c - c);
    int8_t* yc = y_row + c * plane;
    int16x8_t wv[9];
    for (size_t t = 0; t < 9; ++t) wv[t] = vld1q_s16(g.w[t]);
    const int32x4_t b_lo = vld1q_s32(g.bias), b_hi = vld1q_s32(g.bias + 4);
    const int16_t* const rows[3] = {ring[0] + c, ring[1] + c, ring[2] + c};
    if (g.neg_shift[0] <= 0 && g.right[0] == 0) {
      const auto d = GroupRequant<SignedRequant>(g.mult, g.neg_shift, zp, act_min, act_max);
      RowGroup<St>(rows, cp, wv, b_lo, b_hi, d, s.out_w, yc, plane, lanes);
    } else if (g.neg_shift[0] <= 0) {
      const auto d = GroupRequant<DoublingRequant>(g.mult, g.neg_shift, zp, act_min, act_max);
      RowGroup<St>(rows, cp, wv, b_lo, b_hi, d, s.out_w, yc, plane, lanes);
    } else {
      const neon_requant::LaneRequant l =
          neon_requant::MakeLaneRequant(g.mult, g.right, rq.y_zero_point, rq.act_min, rq.act_max);
      RowGroup<St>(rows, cp, wv, b_lo, b_hi, l, s.out_w, yc, plane, lanes);
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS::hwc_neon
