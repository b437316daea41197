// AddInt8 with the DSP extension (int8_dsp.h): ref::AddS8's formula
//   y = clamp(zp_y + RoundShiftHalfAway((a − zp_a)·ma + (b − zp_b)·mb, n), act_min, act_max)
// in 32-bit steps around one SMULL and one SMLAL. v = (a − zp_a)·ma + (b − zp_b)·mb has
// |v| < 2^41 (|a − zp_a| ≤ 255, 0 ≤ m < 2^31), so for 9 ≤ n ≤ 31 (the compiler's choice for
// operand-to-output scale ratios near 1 is n = 31 − e, ratios below 2^(1−e)) the quotient fits
// in 32 bits:
//   w = v + 2^(n−1) − [v < 0]                (2^(n−1) − [v < 0] ≥ 0 fits the low word: no borrow)
//   q = floor(w / 2^n) = (lo(w) >> n) | (hi(w) << (32 − n))
// is v / 2^n rounded half away from zero; SSAT to int8 after adding zp_y, then the clamp. Other
// shifts take the portable code.
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {
namespace {

struct AddConsts {
  int32_t zpa, zpb, ma, mb, zpy;
  uint32_t half;  // 2^(n−1)
  uint32_t n, m;  // n and 32 − n
};

// One output before the clamp: ssat8(zp_y + RoundShiftHalfAway(v, n)).
EDGEFOLD_DSP_INLINE int32_t AddOne(const AddConsts& c, int32_t a, int32_t b) {
  const int64_t v = static_cast<int64_t>(a - c.zpa) * c.ma + static_cast<int64_t>(b - c.zpb) * c.mb;
  const uint32_t hi = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
  const uint32_t sign = static_cast<uint32_t>(static_cast<int32_t>(hi) >> 31);  // 0 or all ones
  const uint64_t w = static_cast<uint64_t>(v) + (c.half + sign);
  const uint32_t q = (static_cast<uint32_t>(w) >> c.n) | (static_cast<uint32_t>(w >> 32) << c.m);
  return __ssat(static_cast<int32_t>(q) + c.zpy, 8);
}

}  // namespace

void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  if (p.shift < 9 || p.shift > 31 || p.multiplier_a < 0 || p.multiplier_b < 0) {
    ref::AddS8(p, a, b, y, n);
    return;
  }
  const AddConsts c{p.a_zero_point,
                    p.b_zero_point,
                    p.multiplier_a,
                    p.multiplier_b,
                    p.y_zero_point,
                    1u << (p.shift - 1),
                    static_cast<uint32_t>(p.shift),
                    static_cast<uint32_t>(32 - p.shift)};
  // One output a step with a scalar clamp: four inlined outputs and a clamp of four packed bytes
  // took 0.2 instructions less an output and 300 B more of flash than the M4 KWS budget leaves.
  for (size_t i = 0; i < n; ++i) {
    const int32_t q = AddOne(c, a[i], b[i]);
    y[i] = static_cast<int8_t>(q < p.act_min ? p.act_min : q > p.act_max ? p.act_max : q);
  }
}

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
