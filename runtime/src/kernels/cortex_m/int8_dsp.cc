// The row requantization of the DSP-extension int8 kernels (the GEMM, int8_dsp_gemm4.cc, and the
// depthwise convolution, int8_dsp_depthwise.cc) and Quantize (int8_dsp.h).
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {

ActRequant MakeActRequant(int32_t zero_point, int32_t act_min, int32_t act_max) {
  ActRequant a;
  a.zero_point = zero_point, a.act_min = act_min, a.act_max = act_max;
  a.min4 = 0x01010101u * static_cast<uint8_t>(act_min);
  a.max4 = 0x01010101u * static_cast<uint8_t>(act_max);
  return a;
}

RowRequant MakeRowRequant(int32_t multiplier, int32_t shift, const ActRequant& act) {
  RowRequant q;
  q.multiplier = multiplier, q.shift = shift, q.t = shift - 1;  // t = n − 32
  if (q.Fast()) q.high = (1u << (q.t - 1)) + static_cast<uint32_t>(act.zero_point) * (1u << q.t);
  // acc·M ≡ 2^(n−1) (mod 2^n), a tie, needs ctz(acc) + ctz(M) = n − 1 ≥ 32 + t, where
  // ctz(acc) ≤ 30 (|acc| < 2^31, acc ≠ 0): impossible while ctz(M) ≤ t (M > 0).
  q.no_ties = multiplier > 0 && __builtin_ctz(static_cast<uint32_t>(multiplier)) <= q.t;
  return q;
}

namespace {

// max(q, lo) and min(q, hi) on four bytes at once.
#define EDGEFOLD_DSP_RQ_CLAMP(tmp) \
  "ssub8  " tmp                    \
  ", %[q], %[mn]\n\t"              \
  "sel    %[q], %[q], %[mn]\n\t"   \
  "ssub8  " tmp                    \
  ", %[q], %[mx]\n\t"              \
  "sel    %[q], %[mx], %[q]\n\t"

// groups × 4 outputs of acc into y (four bytes a store) for a row without ties (q.Fast(),
// q.no_ties): round half up is then round half away from zero, and
// hi32(acc·M + 2^(n−1) + zp·2^n) = SMMLA(acc, M, high), so one output is SMMLA, ASR and SSAT:
// 24 instructions for four outputs (the SMLAL form with the borrow of [acc < 0] took 34).
#define EDGEFOLD_DSP_RQ4                 \
  "ldrd   %[a], %[b], [%[acc]], #8\n\t"  \
  "smmla  %[a], %[a], %[m], %[high]\n\t" \
  "smmla  %[b], %[b], %[m], %[high]\n\t" \
  "asr    %[a], %[a], %[t]\n\t"          \
  "asr    %[b], %[b], %[t]\n\t"          \
  "ssat   %[q], #8, %[a]\n\t"            \
  "ssat   %[b], #8, %[b]\n\t"            \
  "bfi    %[q], %[b], #8, #8\n\t"        \
  "ldrd   %[a], %[b], [%[acc]], #8\n\t"  \
  "smmla  %[a], %[a], %[m], %[high]\n\t" \
  "smmla  %[b], %[b], %[m], %[high]\n\t" \
  "asr    %[a], %[a], %[t]\n\t"          \
  "asr    %[b], %[b], %[t]\n\t"          \
  "ssat   %[a], #8, %[a]\n\t"            \
  "ssat   %[b], #8, %[b]\n\t"            \
  "bfi    %[q], %[a], #16, #8\n\t"       \
  "bfi    %[q], %[b], #24, #8\n\t"
#define EDGEFOLD_DSP_RQ4_STORE "str    %[q], [%[y]], #4\n\t"
// One group a loop pass, or two (one loop branch per eight outputs; an odd count enters at the
// second: n = (groups + 1) / 2 passes, C = groups even).
#define EDGEFOLD_DSP_RQ4_LOOP(group) \
  "1:\n\t" group                     \
  "subs   %[n], %[n], #1\n\t"        \
  "bne    1b\n\t"
#define EDGEFOLD_DSP_RQ8_LOOP(group) \
  "adds   %[n], %[n], #1\n\t"        \
  "lsrs   %[n], %[n], #1\n\t"        \
  "bcc    2f\n\t"                    \
  "1:\n\t" group "2:\n\t" group      \
  "subs   %[n], %[n], #1\n\t"        \
  "bne    1b\n\t"

// kClamp = false where [act_min, act_max] is all of int8 (SSAT already clamps: a ReLU whose
// output zero point is −128, no activation; every activation of the networks measured), the
// loop with two groups a pass; the rarer clamped rows keep one (less flash).
template <bool kClamp>
void RequantGroupsNoTies(const int32_t* acc, size_t groups, const RowRequant& rq,
                         const ActRequant& act, int8_t* y) {
  uint32_t a, b, q;
  if constexpr (kClamp) {
    __asm__ volatile(
        EDGEFOLD_DSP_RQ4_LOOP(EDGEFOLD_DSP_RQ4 EDGEFOLD_DSP_RQ_CLAMP("%[a]") EDGEFOLD_DSP_RQ4_STORE)
        : [acc] "+r"(acc), [y] "+r"(y), [n] "+r"(groups), [a] "=&r"(a), [b] "=&r"(b), [q] "=&r"(q)
        : [high] "r"(rq.high), [m] "r"(rq.multiplier), [t] "r"(rq.t), [mn] "r"(act.min4),
          [mx] "r"(act.max4)
        : "cc", "memory");
  } else {
    __asm__ volatile(
        EDGEFOLD_DSP_RQ8_LOOP(EDGEFOLD_DSP_RQ4 EDGEFOLD_DSP_RQ4_STORE)
        : [acc] "+r"(acc), [y] "+r"(y), [n] "+r"(groups), [a] "=&r"(a), [b] "=&r"(b), [q] "=&r"(q)
        : [high] "r"(rq.high), [m] "r"(rq.multiplier), [t] "r"(rq.t)
        : "cc", "memory");
  }
}

}  // namespace

void RequantRow(const int32_t* acc, size_t n, const RowRequant& q, const ActRequant& act,
                int8_t* y) {
  if (!q.Fast() || !q.no_ties) {  // rows that could hold a tie: rare (ctz(M) > t), per output
    for (size_t j = 0; j < n; ++j)
      y[j] = RequantizeS8(acc[j], q.multiplier, q.shift, act.zero_point, act.act_min, act.act_max);
    return;
  }
  const size_t groups = n / 4, rest = n % 4;
  const bool clamp = act.min4 != 0x80808080u || act.max4 != 0x7f7f7f7fu;
  const auto groups_fn = clamp ? &RequantGroupsNoTies<true> : &RequantGroupsNoTies<false>;
  if (groups != 0) groups_fn(acc, groups, q, act, y);
  if (rest == 0) return;
  uint32_t w;  // the last group's bytes (acc is readable that far)
  groups_fn(acc + 4 * groups, 1, q, act, reinterpret_cast<int8_t*>(&w));
  int8_t* tail = y + 4 * groups;
  tail[0] = static_cast<int8_t>(w);
  if (rest > 1) tail[1] = static_cast<int8_t>(w >> 8);
  if (rest > 2) tail[2] = static_cast<int8_t>(w >> 16);
}

#if defined(EDGEFOLD_HAVE_QUANTIZE_DSP)
// Four values a loop pass (one VLDM, one word store: 25 instructions where one at a time took
// 40), then one at a time; the same VMUL, VCVTR, QADD and SSAT per value.
void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n) {
  const float inv = p.inv_scale;
  const int32_t zp = p.zero_point;
  if (size_t groups = n / 4; groups != 0) {
    uint32_t a, b, q;
    __asm__ volatile(
        "1:\n\t"
        "vldmia        %[x]!, {s8-s11}\n\t"
        "vmul.f32      s8, s8, %[inv]\n\t"
        "vmul.f32      s9, s9, %[inv]\n\t"
        "vmul.f32      s10, s10, %[inv]\n\t"
        "vmul.f32      s11, s11, %[inv]\n\t"
        "vcvtr.s32.f32 s8, s8\n\t"
        "vcvtr.s32.f32 s9, s9\n\t"
        "vcvtr.s32.f32 s10, s10\n\t"
        "vcvtr.s32.f32 s11, s11\n\t"
        "vmov          %[a], %[b], s8, s9\n\t"
        "qadd          %[a], %[a], %[zp]\n\t"
        "qadd          %[b], %[b], %[zp]\n\t"
        "ssat          %[q], #8, %[a]\n\t"
        "ssat          %[b], #8, %[b]\n\t"
        "bfi           %[q], %[b], #8, #8\n\t"
        "vmov          %[a], %[b], s10, s11\n\t"
        "qadd          %[a], %[a], %[zp]\n\t"
        "qadd          %[b], %[b], %[zp]\n\t"
        "ssat          %[a], #8, %[a]\n\t"
        "ssat          %[b], #8, %[b]\n\t"
        "bfi           %[q], %[a], #16, #8\n\t"
        "bfi           %[q], %[b], #24, #8\n\t"
        "str           %[q], [%[y]], #4\n\t"
        "subs          %[n], %[n], #1\n\t"
        "bne           1b\n\t"
        : [x] "+r"(x), [y] "+r"(y), [n] "+r"(groups), [a] "=&r"(a), [b] "=&r"(b), [q] "=&r"(q)
        : [inv] "t"(inv), [zp] "r"(zp)
        : "cc", "memory", "s8", "s9", "s10", "s11");
    n %= 4;
  }
  for (size_t i = 0; i < n; ++i) {
    float q;
    int32_t r;
    __asm__("vcvtr.s32.f32 %[q], %[v]\n\tvmov %[r], %[q]"
            : [q] "=&t"(q), [r] "=r"(r)
            : [v] "t"(x[i] * inv));
    y[i] = static_cast<int8_t>(__ssat(__qadd(r, zp), 8));
  }
}
#endif

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
