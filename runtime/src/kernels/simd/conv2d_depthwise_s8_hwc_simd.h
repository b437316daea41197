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

#include "kernels/simd/depthwise_s8_hwc_x86.h"
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
bool Conv2dDepthwiseS8Hwc(const Conv2dShape& s, const int8_t* x, const int8_t* w,
                          int8_t x_zero_point, const GemmS8Params& rq, int8_t* scratch, int8_t* y) {
#if defined(__ARM_NEON) || defined(__AVX2__)
  if (!ConvS8UsesDepthwiseHwc(s) || rq.depthwise_scratch_bytes < ConvS8DepthwiseHwcBytes(s))
    return false;
#if !defined(__ARM_NEON)
    // On x86 only small planes: per op on an AMD EPYC (AVX-512, no VNNI), MobileNetV2 int8, the
    // 7 × 7 depthwise convs 0.57–0.90 of the planes' time, 14 × 14 1.5×, stride 2 into 56 × 56
    // 2.6× and into 112 × 112 … 56 × 56 3.2× (measured with a scalar row transpose and a store
    // per output). The AVX2 steps store 8 pixels of a channel at once and take rows of up to
    // kDepthwiseS8HwcMaxWidthAvx2 (AMD Zen 4 held to AVX2, MobileNetV1-0.25 VWW int8: 24 the
    // fastest of 8, 12, 24 and 48).
#if defined(__AVX512BW__)
  if (s.out_w > kDepthwiseS8HwcMaxWidthX86) return false;
#else
  if (s.out_w > kDepthwiseS8HwcMaxWidthAvx2) return false;
#endif
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
  const size_t c_n = s.in_c;
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
    const int16_t* const ring_rows[3] = {r0, r1, r2};
    const DepthwiseHwcConsts k{bias, mult, right, wt, cp};
    const size_t row_at = oh * s.out_w;
    int8_t* y_row = y + row_at;
    size_t c = 0;
#if defined(__AVX512BW__)
    for (; c + 16 <= c_n; c += 16)
      DepthwiseHwcRow16(s, ring_rows, cp, wt, bias, mult, right, rq, c, y_row + c * out_plane,
                        out_plane);
#else
    for (; c + 16 <= c_n; c += 16)
      DepthwiseHwcRow16Avx2(s, ring_rows, k, rq, c, row_at, y_row + c * out_plane, out_plane);
#endif
    for (; c < c_n; c += 8)
      DepthwiseHwcRow8(s, ring_rows, k, rq, c, std::min<size_t>(8, c_n - c), row_at,
                       y_row + c * out_plane, out_plane);
#endif
  }
  return true;
#else
  (void)s, (void)x, (void)w, (void)x_zero_point, (void)rq, (void)scratch, (void)y;
  return false;
#endif
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
