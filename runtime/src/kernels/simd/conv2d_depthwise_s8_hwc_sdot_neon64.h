// The int8 3×3 depthwise convolution channels-innermost with sdot (AArch64 +dotprod; included
// only by arch/neon_dotprod.cc), for the convs of kernels::ConvS8UsesDepthwiseHwc. One group of
// 8 channels at a time: its weights and constants set once, its padded input rows moved (an
// 8 × 8 byte transposition) into a ring of int8 [pitch][8] rows as the windows reach them, and
// a window column's rows as the four bytes of one sdot lane:
//   acc[p][c] = bias[c] + Σ_{t<3} Σ_{r<4} T[p·stride + t][c][r]·W[t][c][r],
//   T[j][c] = (ring[0][j][c], ring[1][j][c], ring[2][j][c], ·), W[t][c] = (w[c][0][t],
//   w[c][1][t], w[c][2][t], 0),
// T built in registers per column by four zips (two registers of four channels), so a pixel
// takes three sdot per four channels (the smlal kernel: nine smlal/smlal2 pairs per eight). At
// stride 1 two output rows a step share the column's four ring rows: the first row's T is
// (r0, r1, r2, r3) against W (byte 3 weight 0), the second's T >> 8 = (r1, r2, r3, 0) against
// the same W. Requantization and stores are conv2d_depthwise_s8_hwc_neon.h's. Signed by signed
// bytes, the sums exact: the bits of ref::Conv2dDepthwiseS8.
#pragma once
#include <arm_neon.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/conv/conv_scratch.h"
#include "kernels/int8_params.h"
#include "kernels/kernel_params.h"
#include "kernels/simd/conv2d_depthwise_s8_hwc_neon.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS::hwc_sdot {

// Pixels a step, of one row or two (three or two a step of two rows counted more instructions on
// DS-CNN under QEMU).
constexpr size_t kPixels = 4;

// A group of 8 channels' weights as sdot reads them (column t, channel l, row r; byte 3 zero),
// bias, multiplier, −shift (the doubling form's; +1 in every lane of a group without it) and
// −(31 + shift) (the 64-bit form's); lanes past in_c with weights 0, bias 0, multiplier 2^30 and
// shift 1 (computed, never stored). On the stack, one group at a time.
struct Group {
  int8_t w[3][8][4];
  int32_t bias[8], mult[8], neg_shift[8], right[8];
};
static_assert(sizeof(Group) == 224, "a group is its weights and 32 int32 constants");

// A group's requantization: the 64-bit form, the doubling form, or its signed form
// (hwc_neon::SignedRequant).
enum class Form { kWide, kDoubling, kSigned };

// One group's lanes from channel c0 on, one at a time (the last group, whose weights end the
// tensor, and groups with lanes past in_c).
inline Form PrepareGroupLanes(const Conv2dShape& s, const int8_t* w, const GemmS8Params& rq,
                              size_t c0, Group& g) {
  bool doubling = true, signed_form = true;
  for (size_t l = 0; l < 8; ++l) {
    const size_t c = c0 + l;
    const bool real = c < s.in_c;
    const int32_t shift = real ? rq.shift[c] : 1;
    for (size_t t = 0; t < 3; ++t)
      for (size_t r = 0; r < 4; ++r) g.w[t][l][r] = real && r < 3 ? w[c * 9 + 3 * r + t] : 0;
    g.bias[l] = real && rq.bias != nullptr ? rq.bias[c] : 0;
    g.mult[l] = real ? rq.multiplier[c] : 1 << 30;
    g.right[l] = -(31 + shift);
    g.neg_shift[l] = -shift;
    doubling = doubling && shift >= 1 && g.bias[l] >= -hwc_neon::kDoublingBiasBound &&
               g.bias[l] <= hwc_neon::kDoublingBiasBound;
    signed_form = signed_form && (!real || hwc_neon::SignedFormLane(g.mult[l], shift));
  }
  return !doubling ? Form::kWide : signed_form ? Form::kSigned : Form::kDoubling;
}

// A group of 8 channels whose weights are followed by at least 12 more bytes of the tensor: the
// weights by tbl (register (t, q) byte 4l + r = w[(4q + l)·9 + 3r + t], r < 3, from the 48 bytes
// at channel 4q), the constants four lanes at a time.
inline Form PrepareGroupVector(const int8_t* w, const GemmS8Params& rq, size_t c0, Group& g) {
  for (size_t t = 0; t < 3; ++t) {
    alignas(16) uint8_t index[16];
    for (size_t l = 0; l < 4; ++l)
      for (size_t r = 0; r < 4; ++r)
        index[4 * l + r] = r < 3 ? static_cast<uint8_t>(9 * l + 3 * r + t) : 0xFF;
    const uint8x16_t ix = vld1q_u8(index);
    for (size_t q = 0; q < 2; ++q) {
      const int8_t* src = w + (c0 + 4 * q) * 9;
      const int8x16x3_t table = {{vld1q_s8(src), vld1q_s8(src + 16), vld1q_s8(src + 32)}};
      vst1q_s8(g.w[t][4 * q], vqtbl3q_s8(table, ix));
    }
  }
  const int32x4_t bound = vdupq_n_s32(hwc_neon::kDoublingBiasBound);
  uint32x4_t ok = vdupq_n_u32(~0u), signed_ok = ok;
  for (size_t h = 0; h < 8; h += 4) {
    const int32x4_t shift = vld1q_s32(rq.shift + c0 + h);
    const int32x4_t bias = rq.bias != nullptr ? vld1q_s32(rq.bias + c0 + h) : vdupq_n_s32(0);
    const int32x4_t mult = vld1q_s32(rq.multiplier + c0 + h);
    vst1q_s32(g.bias + h, bias);
    vst1q_s32(g.mult + h, mult);
    // M mod 2^shift ≠ 0 (hwc_neon::SignedFormLane; shifts below 1, where this mask is 0 or
    // meaningless, fail `ok` below)
    const int32x4_t low_bits = vsubq_s32(vshlq_s32(vdupq_n_s32(1), shift), vdupq_n_s32(1));
    signed_ok = vandq_u32(signed_ok, vtstq_s32(mult, low_bits));
    vst1q_s32(g.right + h, vnegq_s32(vaddq_s32(shift, vdupq_n_s32(31))));
    vst1q_s32(g.neg_shift + h, vnegq_s32(shift));
    ok = vandq_u32(ok, vcgtq_s32(shift, vdupq_n_s32(0)));
    ok = vandq_u32(ok, vandq_u32(vcleq_s32(bias, bound), vcgeq_s32(bias, vnegq_s32(bound))));
  }
  if (vminvq_u32(ok) == 0) return Form::kWide;
  return vminvq_u32(signed_ok) != 0 ? Form::kSigned : Form::kDoubling;
}

// Group c0's weights and constants, and its requantization's form.
inline Form PrepareGroup(const Conv2dShape& s, const int8_t* w, const GemmS8Params& rq, size_t c0,
                         Group& g) {
  // tbl reads 48 bytes from channel c0 + 4 on: 12 past the group's weights.
  const Form form = (c0 + 8) * 9 + 12 <= s.in_c * 9 ? PrepareGroupVector(w, rq, c0, g)
                                                    : PrepareGroupLanes(s, w, rq, c0, g);
  if (form == Form::kWide)
    for (int32_t& n : g.neg_shift) n = 1;
  return form;
}

// P pixels of R output rows (R = 2 at stride 1: rows[0..R + 2) are the window rows of the
// first) of one group: column j of the rows as T, then each pixel whose window holds the column
// takes it with that column's weights; the second row takes T >> 8 in each lane (rows 1..3 of
// the four, byte 3 zero) with the same weights.
template <size_t R, size_t P, size_t St, class Rq>
inline void Pixels(const int8_t* const (&rows)[R + 2], const int8x16_t (&wv)[3][2], int32x4_t b_lo,
                   int32x4_t b_hi, const Rq& rq, int8_t* yo, size_t out_w, size_t plane,
                   size_t lanes) {
  constexpr size_t kCols = (P - 1) * St + 3;
  int32x4_t lo[R][P], hi[R][P];
  for (size_t r = 0; r < R; ++r)
    for (size_t p = 0; p < P; ++p) lo[r][p] = b_lo, hi[r][p] = b_hi;
  int8x16_t x[R + 2];
#pragma GCC unroll 16
  for (size_t j = 0; j < kCols; ++j) {
    // Columns j and j + 1 of a row are one 16-byte load (8 channels a column); the last odd
    // column reads 8 bytes past, inside the scratch (Conv2dDepthwiseS8Hwc).
    if (j % 2 == 0)
      for (size_t k = 0; k < R + 2; ++k) x[k] = vld1q_s8(rows[k] + 8 * j);
    // One row: byte 3 repeats row 2 (its weight is 0).
    const int8x16_t x3 = R == 2 ? x[R + 1] : x[2];
    const int16x8_t x01 =
        vreinterpretq_s16_s8(j % 2 == 0 ? vzip1q_s8(x[0], x[1]) : vzip2q_s8(x[0], x[1]));
    const int16x8_t x23 =
        vreinterpretq_s16_s8(j % 2 == 0 ? vzip1q_s8(x[2], x3) : vzip2q_s8(x[2], x3));
    int8x16_t t[R][2];
    t[0][0] = vreinterpretq_s8_s16(vzip1q_s16(x01, x23));
    t[0][1] = vreinterpretq_s8_s16(vzip2q_s16(x01, x23));
    if constexpr (R == 2)
      for (size_t q = 0; q < 2; ++q)
        t[1][q] = vreinterpretq_s8_u32(vshrq_n_u32(vreinterpretq_u32_s8(t[0][q]), 8));
#pragma GCC unroll 4
    for (size_t p = 0; p < P; ++p) {
      if (j < p * St || j >= p * St + 3) continue;
      const size_t k = j - p * St;
      for (size_t r = 0; r < R; ++r) {
        lo[r][p] = vdotq_s32(lo[r][p], t[r][0], wv[k][0]);
        hi[r][p] = vdotq_s32(hi[r][p], t[r][1], wv[k][1]);
      }
    }
  }
  for (size_t r = 0; r < R; ++r) {
    int16x8_t q[P];
    for (size_t p = 0; p < P; ++p) q[p] = hwc_neon::Requantize(lo[r][p], hi[r][p], rq);
    if constexpr (P == 5) {  // four pixels by the 4-pixel store, then the fifth
      const int16x8_t q4[4] = {q[0], q[1], q[2], q[3]}, q1[1] = {q[4]};
      hwc_neon::StoreLanes<4>(q4, yo + r * out_w, plane, lanes);
      hwc_neon::StoreLanes<1>(q1, yo + r * out_w + 4, plane, lanes);
    } else {
      hwc_neon::StoreLanes<P>(q, yo + r * out_w, plane, lanes);
    }
  }
}

// R output rows of one group (its ring rows from the first's window top, 8 bytes a column):
// kPixels a step, then the last one to three together.
template <size_t R, size_t St, class Rq, size_t kStep = kPixels>
inline void RowGroup(const int8_t* const (&ring)[R + 2], const int8x16_t (&wv)[3][2],
                     int32x4_t b_lo, int32x4_t b_hi, const Rq& rq, size_t out_w, int8_t* yc,
                     size_t plane, size_t lanes) {
  size_t ow = 0;
  int8_t* yo = yc;
  const int8_t* rows[R + 2];
  for (; ow + kStep <= out_w; ow += kStep, yo += kStep) {
    for (size_t k = 0; k < R + 2; ++k) rows[k] = ring[k] + 8 * ow * St;
    Pixels<R, kStep, St>(rows, wv, b_lo, b_hi, rq, yo, out_w, plane, lanes);
  }
  for (size_t k = 0; k < R + 2; ++k) rows[k] = ring[k] + 8 * ow * St;
  switch (out_w - ow) {
    case 3:
      Pixels<R, 3, St>(rows, wv, b_lo, b_hi, rq, yo, out_w, plane, lanes);
      break;
    case 2:
      Pixels<R, 2, St>(rows, wv, b_lo, b_hi, rq, yo, out_w, plane, lanes);
      break;
    case 1:
      Pixels<R, 1, St>(rows, wv, b_lo, b_hi, rq, yo, out_w, plane, lanes);
      break;
    default:
      break;
  }
}

// Padded row p (input row p − pad_top) of channels c0..c0 + 7 into `row` ([pitch][8]): the zero
// point in every column of a row outside the input, else columns [lo, hi) from the input (the
// others hold the zero point already, FillRingPadding); lanes past in_c are left as they are
// (their weights are 0).
[[gnu::always_inline]] inline void FillGroupRow(const Conv2dShape& s, size_t pitch, const int8_t* x,
                                                int8_t zp, size_t p, size_t c0, int8_t* row) {
  const long ih = static_cast<long>(p) - static_cast<long>(s.pad_top);
  const size_t lo = std::min(s.pad_left, pitch), hi = std::min(pitch, s.pad_left + s.in_w);
  if (ih < 0 || ih >= static_cast<long>(s.in_h) || hi <= lo) {
    const int8x8_t z = vdup_n_s8(zp);
    for (size_t j = 0; j < pitch; ++j) vst1_s8(row + 8 * j, z);
    return;
  }
  const size_t plane = s.in_h * s.in_w, n = hi - lo;
  const int8_t* src = x + c0 * plane + static_cast<size_t>(ih) * s.in_w + (lo - s.pad_left);
  int8_t* dst = row + 8 * lo;
  size_t j = 0;
  if (c0 + 8 <= s.in_c) {
    // Eight columns a step read 8 bytes of each channel's row: up to 7 past the row (the next
    // row, or the next channel's plane), never past the input, else one at a time.
    const int8_t* x_end = x + s.in_c * plane;
    for (; j < n && src + 7 * plane + j + 8 <= x_end; j += 8)
      hwc_neon::TransposeColumns8(src + j, plane, std::min<size_t>(8, n - j), dst + 8 * j, 8);
  }
  const size_t lanes = std::min<size_t>(8, s.in_c - c0);
  for (; j < n; ++j)
    for (size_t k = 0; k < lanes; ++k) dst[8 * j + k] = src[k * plane + j];
}

// Every output row of group c0: the padded input rows moved into the ring as the windows reach
// them, two output rows a step at stride 1 (ring of four rows), one at stride 2 (three).
template <size_t St, class Rq>
inline void GroupRows(const Conv2dShape& s, const int8_t* x, int8_t zp, size_t c0, size_t pitch,
                      const int8x16_t (&wv)[3][2], int32x4_t b_lo, int32x4_t b_hi, const Rq& rq,
                      int8_t* ring, int8_t* yc) {
  constexpr size_t kRingRows = St == 1 ? 4 : 3;
  const size_t row_bytes = 8 * pitch, plane = s.out_h * s.out_w;
  const size_t lanes = std::min<size_t>(8, s.in_c - c0);
  size_t filled = 0;  // padded rows [0, filled) have been moved into the ring
  for (size_t oh = 0; oh < s.out_h;) {
    const size_t p0 = oh * St;
    const size_t out_rows = St == 1 && s.out_w != 5 && oh + 1 < s.out_h ? 2 : 1;
    for (size_t p = std::max(filled, p0); p < p0 + out_rows + 2; ++p)
      FillGroupRow(s, pitch, x, zp, p, c0, ring + (p % kRingRows) * row_bytes);
    filled = p0 + out_rows + 2;
    const int8_t* rows[4];
    for (size_t k = 0; k < out_rows + 2; ++k) rows[k] = ring + ((p0 + k) % kRingRows) * row_bytes;
    int8_t* yo = yc + oh * s.out_w;
    if constexpr (St == 1) {
      if (s.out_w == 5) {  // DS-CNN's rows: one step of five pixels, a row at a time
        RowGroup<1, 1, Rq, 5>({rows[0], rows[1], rows[2]}, wv, b_lo, b_hi, rq, s.out_w, yo, plane,
                              lanes);
        ++oh;
        continue;
      }
      if (out_rows == 2) {
        RowGroup<2, 1>(rows, wv, b_lo, b_hi, rq, s.out_w, yo, plane, lanes);
        oh += 2;
        continue;
      }
    }
    RowGroup<1, St>({rows[0], rows[1], rows[2]}, wv, b_lo, b_hi, rq, s.out_w, yo, plane, lanes);
    ++oh;
  }
}

// Group c0 with its requantization's constants.
template <size_t St>
inline void Group8(const Conv2dShape& s, const int8_t* x, int8_t zp, const int8_t* w,
                   const GemmS8Params& rq, size_t c0, size_t pitch, int8_t* ring, int8_t* y) {
  Group g;
  const Form form = PrepareGroup(s, w, rq, c0, g);
  int8x16_t wv[3][2];
  for (size_t t = 0; t < 3; ++t)
    for (size_t q = 0; q < 2; ++q) wv[t][q] = vld1q_s8(g.w[t][4 * q]);
  const int32x4_t b_lo = vld1q_s32(g.bias), b_hi = vld1q_s32(g.bias + 4);
  int8_t* yc = y + c0 * s.out_h * s.out_w;
  const int16x8_t zp16 = vdupq_n_s16(static_cast<int16_t>(rq.y_zero_point));
  const int16x8_t lo16 = vdupq_n_s16(static_cast<int16_t>(rq.act_min));
  const int16x8_t hi16 = vdupq_n_s16(static_cast<int16_t>(rq.act_max));
  if (form == Form::kSigned) {
    const auto d =
        hwc_neon::GroupRequant<hwc_neon::SignedRequant>(g.mult, g.neg_shift, zp16, lo16, hi16);
    GroupRows<St>(s, x, zp, c0, pitch, wv, b_lo, b_hi, d, ring, yc);
  } else if (form == Form::kDoubling) {
    const auto d =
        hwc_neon::GroupRequant<hwc_neon::DoublingRequant>(g.mult, g.neg_shift, zp16, lo16, hi16);
    GroupRows<St>(s, x, zp, c0, pitch, wv, b_lo, b_hi, d, ring, yc);
  } else {
    const neon_requant::LaneRequant l =
        neon_requant::MakeLaneRequant(g.mult, g.right, rq.y_zero_point, rq.act_min, rq.act_max);
    GroupRows<St>(s, x, zp, c0, pitch, wv, b_lo, b_hi, l, ring, yc);
  }
}

// The kernel: false where the path does not apply (kernels::ConvS8UsesDepthwiseHwc) or the op's
// scratch is smaller than ConvS8DepthwiseHwcBytes (a model planned without it), the caller then
// runs the planes.
inline bool Conv2dDepthwiseS8Hwc(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                                 int8_t x_zero_point, const GemmS8Params& rq, int8_t* scratch,
                                 int8_t* y) {
  if (!ConvS8UsesDepthwiseHwc(s) || rq.depthwise_scratch_bytes < ConvS8DepthwiseHwcBytes(s))
    return false;
  // One group of 8 channels at a time, its weights and constants in registers for all its rows,
  // its rows in a ring of four (stride 1) or three rows of [pitch][8] bytes at the scratch's
  // head: 32·pitch + 8 bytes read, within ConvS8DepthwiseHwcBytes (at least 48·pitch + 34·8).
  const size_t pitch = DepthwiseS8HwcGeometry(s).pitch;
  const size_t lo = std::min(s.pad_left, pitch), hi = std::min(pitch, s.pad_left + s.in_w);
  hwc_neon::FillRingPadding(pitch, 8, lo, hi, x_zero_point, scratch, 8 * pitch, 4);
  for (size_t c0 = 0; c0 < s.in_c; c0 += 8) {
    if (s.stride_w == 1)
      Group8<1>(s, x, x_zero_point, w, rq, c0, pitch, scratch, y);
    else
      Group8<2>(s, x, x_zero_point, w, rq, c0, pitch, scratch, y);
  }
  return true;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS::hwc_sdot
