// Helium (MVE) int8 GEMM and row requantization (int8_mve.h).
//   VMLADAVA.S8 Rda, Qn, Qm   Rda += Σ_{l<16} Qn[l]·Qm[l]   (exact in 32 bits for k ≤ kMaxGemmS8K)
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>

#include "kernels/cortex_m/int8_dsp.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

// The panel holds the columns of B in groups of four, each group's k in chunks of 16: byte q of
// column 4g + d at panel[g·4·k16 + (q / 16)·64 + d·16 + q % 16]. B is transposed 16 rows × 16
// columns at a time in two interleaving stores (Helium's VST4):
//   1. rows 4s … 4s + 3 through VST4.8: tmp[64s + 4j + d] = B[4s + d][j], i.e. word j of
//      quad s holds column j's k = 4s … 4s + 3;
//   2. per group g, the words of columns 4g … 4g + 3 of the four quads through VST4.32: column
//      4g + jj's 16 k at dst[16·jj], the panel's chunk.
// 64 instructions for 256 bytes. Rows past k are zero (A's tail meets zeros), columns past
// `cols` zero too (their sums are dropped); only the groups holding columns are stored.
void PackColumns(const int8_t* b, size_t ldb, size_t k, size_t k16, size_t j0, size_t cols,
                 int8_t* panel) {
  alignas(16) int8_t tmp[256];
  for (size_t q0 = 0; q0 < k; q0 += 16) {
    const size_t rows = std::min<size_t>(16, k - q0);
    for (size_t c0 = 0; c0 < cols; c0 += 16) {
      const size_t n = std::min<size_t>(16, cols - c0);
      const mve_pred16_t live = vctp8q(static_cast<uint32_t>(n));
      const int8_t* src = b + q0 * ldb + j0 + c0;
      int8x16x4_t quad;
      for (size_t s = 0; s < 4; ++s) {
#pragma GCC unroll 4
        for (size_t d = 0; d < 4; ++d) {
          const size_t r = 4 * s + d;
          quad.val[d] = r < rows ? vldrbq_z_s8(src + r * ldb, live) : vdupq_n_s8(0);
        }
        vst4q_s8(tmp + 64 * s, quad);
      }
      int8_t* dst = panel + c0 * k16 + q0 * 4;  // group c0 / 4, chunk q0 / 16
      // In assembly: GCC 12 folds the group step into VST43's address as a register
      // post-increment, a form VST4 does not have.
      for (size_t g = 0; 4 * g < n; ++g, dst += 4 * k16)
        __asm__ volatile(
            "vldrw.u32  q0, [%[t]]\n\t"
            "vldrw.u32  q1, [%[t], #64]\n\t"
            "vldrw.u32  q2, [%[t], #128]\n\t"
            "vldrw.u32  q3, [%[t], #192]\n\t"
            "vst40.32   {q0, q1, q2, q3}, [%[d]]\n\t"
            "vst41.32   {q0, q1, q2, q3}, [%[d]]\n\t"
            "vst42.32   {q0, q1, q2, q3}, [%[d]]\n\t"
            "vst43.32   {q0, q1, q2, q3}, [%[d]]\n\t"
            :
            : [t] "r"(tmp + 16 * g), [d] "r"(dst)
            : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    }
  }
}

// acc0[d] = bias0 + A_0 · column d, acc1[d] = bias1 + A_1 · column d for the four columns of a
// panel group `w`. Whole chunks of 16 k: 3 + 3 loads and 8 VMLADAVA (VMLADAVA takes even
// accumulator registers: the sums sit in r0, r2, …, r12, lr), 16 instructions for 128
// multiply-accumulates; the last partial chunk loads A under a tail predicate.
void Dot2x4(const int8_t* a0, const int8_t* a1, const int8_t* w, size_t k, int32_t bias0,
            int32_t bias1, int32_t* acc0, int32_t* acc1) {
  register int32_t c00 asm("r0") = bias0;
  register int32_t c01 asm("r2") = bias0;
  register int32_t c02 asm("r4") = bias0;
  register int32_t c03 asm("r6") = bias0;
  register int32_t c10 asm("r8") = bias1;
  register int32_t c11 asm("r10") = bias1;
  register int32_t c12 asm("r12") = bias1;
  register int32_t c13 asm("lr") = bias1;
  register const int8_t* x0 asm("r1") = a0;
  register const int8_t* x1 asm("r3") = a1;
  register const int8_t* pw asm("r5") = w;
  register size_t n asm("r9") = k / 16;
  if (n != 0)
    __asm__ volatile(
        "1:\n\t"
        "vldrb.u8    q0, [%[x0]], #16\n\t"
        "vldrb.u8    q1, [%[x1]], #16\n\t"
        "vldrb.u8    q2, [%[w]], #16\n\t"
        "vmladava.s8 %[c00], q0, q2\n\t"
        "vldrb.u8    q3, [%[w]], #16\n\t"
        "vmladava.s8 %[c10], q1, q2\n\t"
        "vmladava.s8 %[c01], q0, q3\n\t"
        "vldrb.u8    q2, [%[w]], #16\n\t"
        "vmladava.s8 %[c11], q1, q3\n\t"
        "vmladava.s8 %[c02], q0, q2\n\t"
        "vldrb.u8    q3, [%[w]], #16\n\t"
        "vmladava.s8 %[c12], q1, q2\n\t"
        "vmladava.s8 %[c03], q0, q3\n\t"
        "vmladava.s8 %[c13], q1, q3\n\t"
        "subs        %[n], %[n], #1\n\t"
        "bne         1b\n\t"
        : [c00] "+r"(c00), [c01] "+r"(c01), [c02] "+r"(c02), [c03] "+r"(c03), [c10] "+r"(c10),
          [c11] "+r"(c11), [c12] "+r"(c12), [c13] "+r"(c13), [x0] "+r"(x0), [x1] "+r"(x1),
          [w] "+r"(pw), [n] "+r"(n)
        :
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
  int32_t s0[4] = {c00, c01, c02, c03}, s1[4] = {c10, c11, c12, c13};
  if (k % 16 != 0) {
    const mve_pred16_t live = vctp8q(static_cast<uint32_t>(k % 16));
    const int8x16_t v0 = vldrbq_z_s8(x0, live), v1 = vldrbq_z_s8(x1, live);
    for (int d = 0; d < 4; ++d) {
      const int8x16_t v = vldrbq_s8(pw + 16 * d);
      s0[d] = vmladavaq_s8(s0[d], v0, v);
      s1[d] = vmladavaq_s8(s1[d], v1, v);
    }
  }
  for (int d = 0; d < 4; ++d) acc0[d] = s0[d], acc1[d] = s1[d];
}

}  // namespace

void RequantRowMve(const int32_t* acc, size_t n, int32_t multiplier, int32_t shift,
                   int32_t zero_point, int32_t act_min, int32_t act_max, int8_t* y) {
  const int32_t t = shift - 1;  // n_shift − 32
  if (t < 1 || t > 30) {
    for (size_t j = 0; j < n; ++j)
      y[j] = RequantizeS8(acc[j], multiplier, shift, zero_point, act_min, act_max);
    return;
  }
  // In sign and magnitude (M > 0, |acc| < 2^31): RoundShiftHalfAway(acc·M, 32 + t) =
  // sign(acc)·floor((|acc|·M + 2^(31+t)) / 2^(32+t)) = sign(acc)·((hi32(|acc|·M) + 2^(t−1)) >> t),
  // the 2^(31+t) lying wholly in the high half: VABS, VMULH, then VRSHL by −t (a rounding right
  // shift) and a VNEG under VPT where acc < 0. 10 instructions for four outputs.
  const int32x4_t lo_v = vdupq_n_s32(act_min), hi_v = vdupq_n_s32(act_max);
  const int32x4_t m_v = vdupq_n_s32(multiplier);
  const int32_t right = -t;
  size_t groups = n / 4;
  if (groups != 0) {
    __asm__ volatile(
        "wls        lr, %[g], 2f\n\t"
        "1:\n\t"
        "vldrw.u32  q0, [%[acc]], #16\n\t"
        "vabs.s32   q1, q0\n\t"
        "vmulh.s32  q1, q1, %q[m]\n\t"
        "vrshl.s32  q1, %[right]\n\t"
        "vpt.s32    lt, q0, zr\n\t"
        "vnegt.s32  q1, q1\n\t"
        "vadd.i32   q1, q1, %[zp]\n\t"
        "vmax.s32   q1, q1, %q[lo]\n\t"
        "vmin.s32   q1, q1, %q[hi]\n\t"
        "vstrb.32   q1, [%[y]], #4\n\t"
        "le         lr, 1b\n\t"
        "2:\n\t"
        : [acc] "+r"(acc), [y] "+l"(y)  // VSTRB.32: a low base register
        : [g] "r"(groups), [m] "w"(m_v), [right] "r"(right), [zp] "r"(zero_point), [lo] "w"(lo_v),
          [hi] "w"(hi_v)
        : "cc", "memory", "lr", "d0", "d1", "d2", "d3");
  }
  const size_t rest = n % 4;
  if (rest == 0) return;
  const int32x4_t v = vldrwq_s32(acc);  // readable up to n rounded up to 4
  int32x4_t h = vrshlq_n_s32(vmulhq_s32(vabsq_s32(v), m_v), right);
  h = vnegq_m_s32(h, h, vcmpltq_n_s32(v, 0));
  h = vminq_s32(vmaxq_s32(vaddq_n_s32(h, zero_point), lo_v), hi_v);
  vstrbq_p_s32(y, h, vctp32q(static_cast<uint32_t>(rest)));
}

// Column blocks (as many columns as the panel holds, up to kGemmS8BlockCols), then row pairs
// (an odd last row with itself; its results are dropped) and groups of four columns, each
// row's sums requantized together.
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  const size_t k16 = std::max<size_t>(16, (p.k + 15) & ~size_t{15});
  if (4 * k16 > kGemmS8PanelBytes) {
    cortex_m_dsp::GemmS8(p, a, b, y);
    return;
  }
  alignas(16) int8_t panel[kGemmS8PanelBytes];  // VST4.32 stores words
  alignas(16) int32_t rows[2][kGemmS8BlockCols + 4];
  const size_t block_cols = std::min(kGemmS8BlockCols, kGemmS8PanelBytes / (4 * k16) * 4);
  for (size_t j0 = 0; j0 < p.n; j0 += block_cols) {
    const size_t cols = std::min(block_cols, p.n - j0);
    PackColumns(b, p.ldb, p.k, k16, j0, cols, panel);
    for (size_t i = 0; i < p.m; i += 2) {
      const size_t i1 = std::min(i + 1, p.m - 1);
      const int8_t* a0 = a + i * p.lda;
      const int8_t* a1 = a + i1 * p.lda;
      const int32_t b0 = p.bias != nullptr ? p.bias[i] : 0;
      const int32_t b1 = p.bias != nullptr ? p.bias[i1] : 0;
      for (size_t c = 0; c < cols; c += 4)  // a last group's missing columns: sums dropped
        Dot2x4(a0, a1, panel + c * k16, p.k, b0, b1, rows[0] + c, rows[1] + c);
      RequantRowMve(rows[0], cols, p.multiplier[i], p.shift[i], p.y_zero_point, p.act_min,
                    p.act_max, y + i * p.ldy + j0);
      if (i1 != i)
        RequantRowMve(rows[1], cols, p.multiplier[i1], p.shift[i1], p.y_zero_point, p.act_min,
                      p.act_max, y + i1 * p.ldy + j0);
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
