// AddS8 (kernels/int8_params.h) on NEON, AArch64 and ARMv7, in signed 64-bit lanes:
// v = (a − zp_a)·ma + (b − zp_b)·mb by smull/smlal (|v| < 2^40), v − 1 where v < 0 (ssra of the
// sign), then a rounding shift right by `shift` (srshl: floor((v + 2^(shift−1)) / 2^shift)), which
// is v / 2^shift rounded half away from zero, the reference's rule, for every shift in [1, 62]
// (simd/requant_s64_neon.h's argument). Narrowed with saturation to int32 and then int16 (a value
// past int16 stays past the int8 clamp on its own side after ± |zp_y| ≤ 128), zero point and clamp
// on int16 lanes. The same bits as ref::AddS8; the tail is the caller's.
// Included inside an arch namespace.
#pragma once

namespace neon_add {

struct AddConsts {
  int16x8_t zp_a, zp_b;
  int32x4_t ma, mb;
  int64x2_t right;
  int16x8_t zp_y, lo, hi;
};

// The rounded sums of four lanes, saturated to int32.
inline int32x4_t AddFour(int16x4_t da, int16x4_t db, const AddConsts& c) {
  const int32x4_t a32 = vmovl_s16(da), b32 = vmovl_s16(db);
  int64x2_t v0 = vmlal_s32(vmull_s32(vget_low_s32(a32), vget_low_s32(c.ma)), vget_low_s32(b32),
                           vget_low_s32(c.mb));
#if defined(__aarch64__)
  int64x2_t v1 = vmlal_high_s32(vmull_high_s32(a32, c.ma), b32, c.mb);
#else
  int64x2_t v1 = vmlal_s32(vmull_s32(vget_high_s32(a32), vget_low_s32(c.ma)), vget_high_s32(b32),
                           vget_low_s32(c.mb));
#endif
  v0 = vrshlq_s64(vsraq_n_s64(v0, v0, 63), c.right);
  v1 = vrshlq_s64(vsraq_n_s64(v1, v1, 63), c.right);
  return vcombine_s32(vqmovn_s64(v0), vqmovn_s64(v1));
}

// Eight outputs.
inline int8x8_t AddEight(int8x8_t a, int8x8_t b, const AddConsts& c) {
  const int16x8_t da = vsubq_s16(vmovl_s8(a), c.zp_a), db = vsubq_s16(vmovl_s8(b), c.zp_b);
  const int32x4_t q0 = AddFour(vget_low_s16(da), vget_low_s16(db), c);
  const int32x4_t q1 = AddFour(vget_high_s16(da), vget_high_s16(db), c);
  int16x8_t q = vqaddq_s16(vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1)), c.zp_y);
  q = vminq_s16(vmaxq_s16(q, c.lo), c.hi);
  return vmovn_s16(q);
}

// y[i] for i below the returned count, a multiple of 8 (n rounded down).
inline size_t AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  const AddConsts c{vdupq_n_s16(static_cast<int16_t>(p.a_zero_point)),
                    vdupq_n_s16(static_cast<int16_t>(p.b_zero_point)),
                    vdupq_n_s32(p.multiplier_a),
                    vdupq_n_s32(p.multiplier_b),
                    vdupq_n_s64(-static_cast<int64_t>(p.shift)),
                    vdupq_n_s16(static_cast<int16_t>(p.y_zero_point)),
                    vdupq_n_s16(static_cast<int16_t>(p.act_min)),
                    vdupq_n_s16(static_cast<int16_t>(p.act_max))};
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const int8x16_t va = vld1q_s8(a + i), vb = vld1q_s8(b + i);
    vst1q_s8(y + i, vcombine_s8(AddEight(vget_low_s8(va), vget_low_s8(vb), c),
                                AddEight(vget_high_s8(va), vget_high_s8(vb), c)));
  }
  for (; i + 8 <= n; i += 8) vst1_s8(y + i, AddEight(vld1_s8(a + i), vld1_s8(b + i), c));
  return i;
}

}  // namespace neon_add
