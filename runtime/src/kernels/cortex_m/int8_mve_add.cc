// Helium (MVE) int8 Add (int8_mve.h): ref::AddS8's bytes, four outputs a vector in 32-bit lanes.
// The 64-bit sum v = (a − za)·ma + (b − zb)·mb is split at bit 16 of the multipliers
// (m = mh·2^16 + ml, mh < 2^15, ml < 2^16; |a − za| ≤ 255):
//   H = (a − za)·mah + (b − zb)·mbh,  L = (a − za)·mal + (b − zb)·mbl   (both below 2^25)
//   v = H·2^16 + L, normalized to H' = H + (L >> 16), L' = L mod 2^16 (v < 0 ⟺ H' < 0).
// RoundShiftHalfAway(v, s) = floor((v − [v < 0] + 2^(s−1)) / 2^s); for s ≥ 17 the 2^(s−1) lies
// wholly above bit 16, so with L2 = L' − [H' < 0] and H2 = H' + (L2 >> 16) (the borrow):
//   RoundShiftHalfAway(v, s) = (H2 + 2^(s−17)) >> (s − 16)   (VRSHL by −(s − 16)).
// The zero points are folded into the constants H and L start from. Shifts outside [17, 46]
// and zero points outside int8 run the portable code.
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

struct AddConsts {
  int32_t mah, mal, mbh, mbl;
  int32x4_t ch, cl, low16, y_zp, lo, hi;
  int32_t right;
};

inline __attribute__((always_inline)) int32x4_t AddVec(const AddConsts& c, int32x4_t a,
                                                       int32x4_t b) {
  int32x4_t h = vmlaq_n_s32(vmlaq_n_s32(c.ch, a, c.mah), b, c.mbh);
  int32x4_t l = vmlaq_n_s32(vmlaq_n_s32(c.cl, a, c.mal), b, c.mbl);
  h = vaddq_s32(h, vshrq_n_s32(l, 16));
  l = vaddq_s32(vandq_s32(l, c.low16), vshrq_n_s32(h, 31));
  h = vrshlq_n_s32(vaddq_s32(h, vshrq_n_s32(l, 16)), c.right);
  return vminq_s32(vmaxq_s32(vaddq_s32(h, c.y_zp), c.lo), c.hi);
}

}  // namespace

void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  const auto int8_zp = [](int32_t zp) { return zp >= -128 && zp <= 127; };
  if (p.shift < 17 || p.shift > 46 || p.multiplier_a < 0 || p.multiplier_b < 0 ||
      !int8_zp(p.a_zero_point) || !int8_zp(p.b_zero_point)) {
    ref::AddS8(p, a, b, y, n);
    return;
  }
  AddConsts c;
  c.mah = p.multiplier_a >> 16, c.mal = p.multiplier_a & 0xffff;
  c.mbh = p.multiplier_b >> 16, c.mbl = p.multiplier_b & 0xffff;
  c.ch = vdupq_n_s32(-(p.a_zero_point * c.mah + p.b_zero_point * c.mbh));
  c.cl = vdupq_n_s32(-(p.a_zero_point * c.mal + p.b_zero_point * c.mbl));
  c.low16 = vdupq_n_s32(0xffff);
  c.y_zp = vdupq_n_s32(p.y_zero_point);
  c.lo = vdupq_n_s32(p.act_min), c.hi = vdupq_n_s32(p.act_max);
  c.right = -(p.shift - 16);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vstrbq_s32(y + i, AddVec(c, vldrbq_s32(a + i), vldrbq_s32(b + i)));
  if (i == n) return;
  const mve_pred16_t live = vctp32q(static_cast<uint32_t>(n - i));
  vstrbq_p_s32(y + i, AddVec(c, vldrbq_z_s32(a + i, live), vldrbq_z_s32(b + i, live)), live);
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
