// RequantizeS8 (kernels/int8_params.h) on 4 int32 lanes with NEON (ARMv7 and AArch64): the
// magnitude |acc|·M as exact unsigned 64-bit products, rounded half up by a rounding shift, narrowed
// with saturation (values past 2^16 clamp to the same int8, |zp| ≤ 128), the sign put back,
// then zero point and clamp: the scalar rule's bits.
#pragma once
#include <arm_neon.h>

#include <cstdint>

namespace edgefold::kernels::neon_requant {

// The signed rounded value RoundShift(acc·M, 31 + shift) of the rule, before the zero point:
// exact below 2^30, clamped to ±65536 (past every int8 either way) above.
inline int32x4_t RoundShiftS32x4(int32x4_t acc, int32_t multiplier, int32_t shift) {
  const int n = 31 + shift;
  if (n >= 32) {
    // The doubling form, exact for every acc: sqdmulh(|acc|, M) = ⌊|acc|·M / 2^31⌋ (|INT32_MIN|
    // reads as −2^31 there and gives −M, made M by the second abs), then a rounding shift by
    // shift: ⌊(|v| + 2^(n−1)) / 2^n⌋, as 2^(n−1) is a multiple of 2^31; the sign put back.
    const int32x4_t magnitude = vabsq_s32(vqdmulhq_s32(vabsq_s32(acc), vdupq_n_s32(multiplier)));
    const int32x4_t r = vrshlq_s32(magnitude, vdupq_n_s32(-shift));
    const int32x4_t sign = vshrq_n_s32(acc, 31);
    return vsubq_s32(veorq_s32(r, sign), sign);
  }
  const uint32x4_t magnitude = vreinterpretq_u32_s32(vabsq_s32(acc));  // |INT32_MIN| reads as 2^31
  const uint32x2_t m = vdup_n_u32(static_cast<uint32_t>(multiplier));
  // A rounding shift by a negative count: (x + 2^(n−1)) >> n, the rounding half up of the rule
  // (no overflow: |acc|·M < 2^62).
  const int64x2_t right = vdupq_n_s64(-n);
  const uint64x2_t lo = vrshlq_u64(vmull_u32(vget_low_u32(magnitude), m), right);
  const uint64x2_t hi = vrshlq_u64(vmull_u32(vget_high_u32(magnitude), m), right);
  uint32x4_t narrowed = vcombine_u32(vqmovn_u64(lo), vqmovn_u64(hi));
  // n ≥ 32 (a real multiplier below 1/2, nearly every layer): the value is below 2^30 and fits
  // a signed lane as it is; else clamp it where it still clamps to the same int8.
  if (n < 32) narrowed = vminq_u32(narrowed, vdupq_n_u32(65536));
  const int32x4_t q = vreinterpretq_s32_u32(narrowed);
  return vbslq_s32(vcltq_s32(acc, vdupq_n_s32(0)), vnegq_s32(q), q);
}

inline int32x4_t RequantizeS32x4(int32x4_t acc, int32_t multiplier, int32_t shift,
                                 int32_t zero_point, int32_t act_min, int32_t act_max) {
  const int32x4_t q = vaddq_s32(RoundShiftS32x4(acc, multiplier, shift), vdupq_n_s32(zero_point));
  return vminq_s32(vmaxq_s32(q, vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
}

// Sixteen lanes (acc[0] holds lanes 0..3, …) to sixteen int8: the same rule as RequantizeS32x4,
// with the zero point and clamp done once on eight int16 lanes. Exact: the signed values are
// saturated to int16 first, and a saturated value ± |zp| ≤ 128 still lies past the int8 clamp on
// its own side, so it clamps to the same bound.
inline int8x16_t RequantizeS8x16(const int32x4_t (&acc)[4], int32_t multiplier, int32_t shift,
                                 int32_t zero_point, int32_t act_min, int32_t act_max) {
  int32x4_t q[4];
  for (int v = 0; v < 4; ++v) q[v] = RoundShiftS32x4(acc[v], multiplier, shift);
  const int16x8_t zp = vdupq_n_s16(static_cast<int16_t>(zero_point));
  const int16x8_t lo_clamp = vdupq_n_s16(static_cast<int16_t>(act_min)),
                  hi_clamp = vdupq_n_s16(static_cast<int16_t>(act_max));
  int16x8_t h0 = vqaddq_s16(vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1])), zp);
  int16x8_t h1 = vqaddq_s16(vcombine_s16(vqmovn_s32(q[2]), vqmovn_s32(q[3])), zp);
  h0 = vminq_s16(vmaxq_s16(h0, lo_clamp), hi_clamp);
  h1 = vminq_s16(vmaxq_s16(h1, lo_clamp), hi_clamp);
  return vcombine_s8(vmovn_s16(h0), vmovn_s16(h1));
}

// RequantizeS8 on eight lanes, each with its own multiplier and shift (a depthwise step over
// eight channels): the constants of MakeLaneRequant, the rounding of RoundShiftS32x4.
struct LaneRequant {
  uint32x4_t m_lo, m_hi;
  int64x2_t right[4];  // −(31 + shift) of lanes 0‥1, 2‥3, 4‥5, 6‥7
  int16x8_t zp, act_min, act_max;
};
// Lanes l of multiplier[l] and right[l] = −(31 + shift).
inline LaneRequant MakeLaneRequant(const int32_t* multiplier, const int32_t* right,
                                   int32_t zero_point, int32_t act_min, int32_t act_max) {
  LaneRequant r;
  r.m_lo = vreinterpretq_u32_s32(vld1q_s32(multiplier));
  r.m_hi = vreinterpretq_u32_s32(vld1q_s32(multiplier + 4));
  for (int v = 0; v < 4; ++v) r.right[v] = vmovl_s32(vld1_s32(right + 2 * v));
  r.zp = vdupq_n_s16(static_cast<int16_t>(zero_point));
  r.act_min = vdupq_n_s16(static_cast<int16_t>(act_min));
  r.act_max = vdupq_n_s16(static_cast<int16_t>(act_max));
  return r;
}
// |acc|·M rounded by a rounding shift of each lane's n, narrowed with saturation and clamped to
// 65536 (past every int8 either way once signed, as RoundShiftS32x4 for n < 32), sign put back.
inline int32x4_t RoundShiftS32x4Lanes(int32x4_t acc, uint32x4_t m, int64x2_t right_lo,
                                      int64x2_t right_hi) {
  const uint32x4_t magnitude = vreinterpretq_u32_s32(vabsq_s32(acc));
  const uint64x2_t lo = vrshlq_u64(vmull_u32(vget_low_u32(magnitude), vget_low_u32(m)), right_lo);
#if defined(__aarch64__)
  const uint64x2_t hi = vrshlq_u64(vmull_high_u32(magnitude, m), right_hi);
#else
  const uint64x2_t hi = vrshlq_u64(vmull_u32(vget_high_u32(magnitude), vget_high_u32(m)), right_hi);
#endif
  const uint32x4_t narrowed =
      vminq_u32(vcombine_u32(vqmovn_u64(lo), vqmovn_u64(hi)), vdupq_n_u32(65536));
  const int32x4_t q = vreinterpretq_s32_u32(narrowed);
  return vbslq_s32(vcltq_s32(acc, vdupq_n_s32(0)), vnegq_s32(q), q);
}
inline int8x8_t RequantizeS8x8Lanes(int32x4_t acc_lo, int32x4_t acc_hi, const LaneRequant& r) {
  const int32x4_t q0 = RoundShiftS32x4Lanes(acc_lo, r.m_lo, r.right[0], r.right[1]);
  const int32x4_t q1 = RoundShiftS32x4Lanes(acc_hi, r.m_hi, r.right[2], r.right[3]);
  int16x8_t h = vqaddq_s16(vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1)), r.zp);
  h = vminq_s16(vmaxq_s16(h, r.act_min), r.act_max);
  return vmovn_s16(h);
}

// The four results as int8 at q[0..3].
inline void StoreS8x4(int32x4_t requantized, int8_t* q) {
  const int8x8_t bytes = vmovn_s16(vcombine_s16(vmovn_s32(requantized), vdup_n_s16(0)));
  vst1_lane_s32(reinterpret_cast<int32_t*>(q), vreinterpret_s32_s8(bytes), 0);
}

// Four int8 values sign-extended to int32 lanes.
inline int32x4_t LoadS8x4(const int8_t* p) {
  int32_t word;
  __builtin_memcpy(&word, p, 4);
  return vmovl_s16(vget_low_s16(vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(word)))));
}

}  // namespace edgefold::kernels::neon_requant
