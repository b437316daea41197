// QuantizeS8 (ref::QuantizeS8) on NEON, sixteen values a step: v = x·(1/scale) rounded half to
// even (AArch64: fcvtns, which gives 0 for NaN and saturates ±∞ and |v| ≥ 2^31; ARMv7: the
// reference's 1.5·2^23 trick, then a conversion of the integral value, NaN to 0 and saturating
// as well), narrowed with saturation to int16, + zero point with saturation, narrowed with
// saturation to int8 (the reference's clamp to [−128, 127]; its clamp to ±512 before rounding
// changes no int8). The
// same products (one rounding, no FMA), so the reference's bytes; the tail is the reference.
#pragma once
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "kernels/int8_params.h"
#include "kernels/reference.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS::neon_quantize {

inline int32x4_t RoundToInt(float32x4_t v) {
#if defined(__aarch64__)
  return vcvtnq_s32_f32(v);
#else
  const float32x4_t magic = vdupq_n_f32(12582912.0f);
  return vcvtq_s32_f32(vsubq_f32(vaddq_f32(v, magic), magic));
#endif
}

// The zero point is added on int16 lanes (saturating): a value saturated to int16 stays past
// the int8 range on its own side after ± |zp| ≤ 128, so the bytes are the same.
inline void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n) {
  const float32x4_t inv = vdupq_n_f32(p.inv_scale);
  const int16x8_t zp = vdupq_n_s16(static_cast<int16_t>(p.zero_point));
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    int32x4_t q[4];
    for (int v = 0; v < 4; ++v) q[v] = RoundToInt(vmulq_f32(vld1q_f32(x + i + 4 * v), inv));
    const int16x8_t h0 = vqaddq_s16(vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1])), zp);
    const int16x8_t h1 = vqaddq_s16(vcombine_s16(vqmovn_s32(q[2]), vqmovn_s32(q[3])), zp);
    vst1q_s8(y + i, vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1)));
  }
  ref::QuantizeS8(p, x + i, y + i, n - i);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS::neon_quantize
