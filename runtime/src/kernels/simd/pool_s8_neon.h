// The int8 average pool (ref::Pool2dS8) on NEON where each window spans whole input rows
// (kw = in_w, no left padding, unit dilations, one output column: DS-CNN's 25 × 5 average pool
// and every pool that averages a plane): the in-bounds taps of an output are then one
// contiguous run of rows, summed 16 bytes a step by sadalp into int16 lanes (flushed into int32
// lanes every 64 steps, before a lane can pass 64·2·128) and rounded as the reference. Other
// pools are the reference's. Included inside an arch namespace.
#pragma once

namespace neon_pool {

// Σ x[0..n), exact in int32 (n < 2^23).
inline int32_t SumS8(const int8_t* x, size_t n) {
  int32x4_t acc = vdupq_n_s32(0);
  size_t i = 0;
  while (i + 16 <= n) {
    int16x8_t part = vdupq_n_s16(0);
    for (size_t steps = 0; steps < 64 && i + 16 <= n; ++steps, i += 16)
      part = vpadalq_s8(part, vld1q_s8(x + i));
    acc = vpadalq_s16(acc, part);
  }
  int32_t sum = vgetq_lane_s32(acc, 0) + vgetq_lane_s32(acc, 1) + vgetq_lane_s32(acc, 2) +
                vgetq_lane_s32(acc, 3);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

// sum / count rounded half away from zero (count > 0), as the reference.
inline int8_t RoundedMean(int32_t sum, int32_t count) {
  const int32_t q =
      sum >= 0 ? (2 * sum + count) / (2 * count) : -((-2 * sum + count) / (2 * count));
  return static_cast<int8_t>(q);
}

inline void Pool2dS8(const Pool2dParams& p, int32_t zero_point, const int8_t* x, int8_t* y,
                     size_t planes) {
  if (p.kind != PoolKind::kAverage || p.out_w != 1 || p.kw != p.in_w || p.pad_left != 0 ||
      p.dilation_h != 1 || p.dilation_w != 1)
    return ref::Pool2dS8(p, zero_point, x, y, planes);
  const long in_h = static_cast<long>(p.in_h);
  const int32_t taps_all = static_cast<int32_t>(p.kh * p.kw);
  for (size_t pl = 0; pl < planes; ++pl) {
    const int8_t* xp = x + pl * p.in_h * p.in_w;
    for (size_t oh = 0; oh < p.out_h; ++oh) {
      const long top = static_cast<long>(oh * p.stride_h) - static_cast<long>(p.pad_top);
      const long r0 = top < 0 ? 0 : top;
      const long r1 = std::min(top + static_cast<long>(p.kh), in_h);
      int8_t out = static_cast<int8_t>(zero_point);
      if (r1 > r0) {
        const int32_t count = static_cast<int32_t>(static_cast<size_t>(r1 - r0) * p.in_w);
        const int32_t sum =
            SumS8(xp + static_cast<size_t>(r0) * p.in_w, static_cast<size_t>(count));
        const int32_t taps = p.count_include_pad ? taps_all : count;
        out = RoundedMean(sum + (taps - count) * zero_point, taps);
      }
      y[pl * p.out_h + oh] = out;
    }
  }
}

}  // namespace neon_pool
