// AddInt8 with the DSP extension (int8_dsp.h): ref::AddS8's formula
//   y = clamp(zp_y + RoundShiftHalfAway((a − zp_a)·ma + (b − zp_b)·mb, n), act_min, act_max)
// around one SMULL and one SMLAL, the quotient read off as a high word. v = (a − zp_a)·ma +
// (b − zp_b)·mb has |v| < 2^40 (|a − zp_a| ≤ 255, 0 ≤ m < 2^31). For 9 ≤ n ≤ 31 (the compiler's
// choice for operand-to-output scale ratios near 1 is n = 31 − e, ratios below 2^(1−e)) the
// operands are scaled by S = 2^(32−n) first ((a − zp_a)·S fits in 32 bits, v·S in 63), so
//   w = v·S + 2^31 − [v < 0]·S = (v + 2^(n−1) − [v < 0])·S,   q = hi(w) = floor(w / 2^32)
// is v / 2^n rounded half away from zero; SSAT to int8 after adding zp_y, then the clamp. Other
// shifts take the portable code.
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {
namespace {

// The output's clamp, its bounds read from memory (the loop takes all 14 registers).
#define EDGEFOLD_DSP_ADD_CLAMP \
  "ldr    %[x], %[amin]\n\t"   \
  "ldr    %[t], %[amax]\n\t"   \
  "cmp    %[hi], %[x]\n\t"     \
  "it     lt\n\t"              \
  "movlt  %[hi], %[x]\n\t"     \
  "cmp    %[hi], %[t]\n\t"     \
  "it     gt\n\t"              \
  "movgt  %[hi], %[t]\n\t"

// n ≥ 1 outputs: per output two MLAs scale the operands, SMULL + SMLAL give v·S, four
// instructions round and add zp_y, SSAT, and with kClamp the clamp (without: the activation's
// range is all of int8, which SSAT gives).
template <bool kClamp>
void AddRun(const int8_t* a, const int8_t* b, int8_t* y, size_t n, const int32_t* consts,
            const int32_t (&bounds)[2]) {
  const int8_t* const a_end = a + n;
  int32_t x, t, lo, hi;
  __asm__ volatile(
      "1:\n\t"
      "ldrsb  %[x], [%[a]], #1\n\t"
      "ldrsb  %[t], [%[b]], #1\n\t"
      "mla    %[x], %[x], %[s], %[za]\n\t"
      "mla    %[t], %[t], %[s], %[zb]\n\t"
      "smull  %[lo], %[hi], %[x], %[ma]\n\t"
      "smlal  %[lo], %[hi], %[t], %[mb]\n\t"
      "and    %[x], %[s], %[hi], asr #31\n\t"
      "rsb    %[x], %[x], #0x80000000\n\t"
      "adds   %[lo], %[lo], %[x]\n\t"
      "adc    %[hi], %[hi], %[zpy]\n\t"
      "ssat   %[hi], #8, %[hi]\n\t"
      ".if %c[clamp]\n\t" EDGEFOLD_DSP_ADD_CLAMP
      ".endif\n\t"
      "strb   %[hi], [%[y]], #1\n\t"
      "cmp    %[a], %[end]\n\t"
      "bne    1b\n\t"
      : [a] "+r"(a), [b] "+r"(b), [y] "+r"(y), [x] "=&r"(x), [t] "=&r"(t), [lo] "=&r"(lo),
        [hi] "=&r"(hi)
      : [end] "r"(a_end), [s] "r"(consts[0]), [za] "r"(consts[1]), [zb] "r"(consts[2]),
        [ma] "r"(consts[3]), [mb] "r"(consts[4]), [zpy] "r"(consts[5]), [amin] "m"(bounds[0]),
        [amax] "m"(bounds[1]), [clamp] "i"(kClamp ? 1 : 0)
      : "cc", "memory");
}

}  // namespace

void AddS8(const AddS8Params& p, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  if (p.shift < 9 || p.shift > 31 || p.multiplier_a < 0 || p.multiplier_b < 0) {
    ref::AddS8(p, a, b, y, n);
    return;
  }
  if (n == 0) return;
  const int32_t scale = int32_t{1} << (32 - p.shift);  // S
  const int32_t consts[6] = {scale,          -p.a_zero_point * scale, -p.b_zero_point * scale,
                             p.multiplier_a, p.multiplier_b,          p.y_zero_point};
  const int32_t bounds[2] = {p.act_min, p.act_max};
  if (p.act_min <= -128 && p.act_max >= 127)
    AddRun<false>(a, b, y, n, consts, bounds);
  else
    AddRun<true>(a, b, y, n, consts, bounds);
}

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
