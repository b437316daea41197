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
// Stage 1 in assembly (GCC keeps the rows' predicates and a zero vector in memory), about 90
// instructions for 256 bytes. Rows past k are zero (A's tail meets zeros), columns past `cols`
// zero too (their sums are dropped); only the groups holding columns are stored.

// Stage 1 of a unit: the 16 rows at src (row stride ldb, the lanes of `live` loaded, the others
// zero) through four VST4.8 into tmp[256]. 53 instructions.
void InterleaveRows(const int8_t* src, size_t ldb, mve_pred16_t live, int8_t* tmp) {
  register const int8_t* r0 asm("r0") = src;
  register const int8_t* r1 asm("r1") = src + ldb;
  register const int8_t* r2 asm("r2") = src + 2 * ldb;
  register const int8_t* r3 asm("r3") = src + 3 * ldb;
  register int8_t* out asm("r12") = tmp;
  const size_t step = 4 * ldb;
  const uint32_t pred = live;
#define EDGEFOLD_MVE_QUAD                     \
  "vpstttt\n\t"                               \
  "vldrbt.u8  q0, [%[r0]]\n\t"                \
  "vldrbt.u8  q1, [%[r1]]\n\t"                \
  "vldrbt.u8  q2, [%[r2]]\n\t"                \
  "vldrbt.u8  q3, [%[r3]]\n\t"                \
  "add        %[r0], %[step]\n\t"             \
  "add        %[r1], %[step]\n\t"             \
  "add        %[r2], %[step]\n\t"             \
  "add        %[r3], %[step]\n\t"             \
  "vst40.8    {q0, q1, q2, q3}, [%[out]]\n\t" \
  "vst41.8    {q0, q1, q2, q3}, [%[out]]\n\t" \
  "vst42.8    {q0, q1, q2, q3}, [%[out]]\n\t" \
  "vst43.8    {q0, q1, q2, q3}, [%[out]]!\n\t"
  __asm__ volatile("vmsr       p0, %[pred]\n\t" EDGEFOLD_MVE_QUAD EDGEFOLD_MVE_QUAD
                       EDGEFOLD_MVE_QUAD EDGEFOLD_MVE_QUAD
                   : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [out] "+r"(out)
                   : [step] "r"(step), [pred] "r"(pred)
                   : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
#undef EDGEFOLD_MVE_QUAD
}

// Stage 2 of a unit: `groups` groups of four columns from tmp to dst, 4·k16 bytes apart.
void InterleaveWords(const int8_t* tmp, size_t groups, size_t group_bytes, int8_t* dst) {
  for (size_t g = 0; g < groups; ++g, tmp += 16, dst += group_bytes)
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
        : [t] "r"(tmp), [d] "r"(dst)
        : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
}

void PackColumns(const int8_t* b, size_t ldb, size_t k, size_t k16, size_t j0, size_t cols,
                 int8_t* panel) {
  alignas(16) int8_t tmp[256];
  alignas(16) int8_t rows[256];  // a last chunk of fewer than 16 rows, zero below them
  for (size_t q0 = 0; q0 < k; q0 += 16) {
    const size_t n_rows = std::min<size_t>(16, k - q0);
    for (size_t c0 = 0; c0 < cols; c0 += 16) {
      const size_t n = std::min<size_t>(16, cols - c0);
      const mve_pred16_t live = vctp8q(static_cast<uint32_t>(n));
      const int8_t* src = b + q0 * ldb + j0 + c0;
      if (n_rows == 16) {
        InterleaveRows(src, ldb, live, tmp);
      } else {
        for (size_t r = 0; r < 16; ++r)
          vstrbq_s8(rows + 16 * r, r < n_rows ? vldrbq_z_s8(src + r * ldb, live) : vdupq_n_s8(0));
        InterleaveRows(rows, 16, 0xffff, tmp);
      }
      // Group c0 / 4, chunk q0 / 16.
      InterleaveWords(tmp, (n + 3) / 4, 4 * k16, panel + c0 * k16 + q0 * 4);
    }
  }
}

// The sums of a row pair over `groups` panel groups, into acc0[4g + d] (row 0) and
// acc1 = acc0 + kRowsPitch (row 1), which hold the rows' biases on entry. `x` is the pair's A
// interleaved a chunk of 16 k at a time (row 0's chunk, row 1's chunk, …), zero past k, `pair`
// = 2·k16 its bytes. Per group: the eight sums loaded from acc (VMLADAVA takes even accumulator
// registers: r0, r2, …, r12, lr), per chunk 2 + 4 loads and 8 VMLADAVA (16 instructions for
// 128 multiply-accumulates), x rewound, the sums stored.
constexpr size_t kRowsPitch = kGemmS8BlockCols + 4;
void DotRowPair(const int8_t* x, size_t pair, const int8_t* w, size_t groups, int32_t* acc0) {
  register const int8_t* px asm("r1") = x;
  register size_t bytes asm("r3") = pair;
  register const int8_t* pw asm("r5") = w;
  register size_t g asm("r9") = groups;
  register int32_t* out asm("r11") = acc0;
  static_assert(kRowsPitch * 4 == 272, "the row pitch in the stores below");
  __asm__ volatile(
      "2:\n\t"
      "ldrd        r0, r2, [%[out]]\n\t"
      "ldrd        r4, r6, [%[out], #8]\n\t"
      "ldrd        r8, r10, [%[out], #272]\n\t"
      "ldrd        r12, lr, [%[out], #280]\n\t"
      "lsrs        r7, %[bytes], #5\n\t"
      "1:\n\t"
      "vldrb.u8    q0, [%[x]], #16\n\t"
      "vldrb.u8    q1, [%[x]], #16\n\t"
      "vldrb.u8    q2, [%[w]], #16\n\t"
      "vmladava.s8 r0, q0, q2\n\t"
      "vldrb.u8    q3, [%[w]], #16\n\t"
      "vmladava.s8 r8, q1, q2\n\t"
      "vmladava.s8 r2, q0, q3\n\t"
      "vldrb.u8    q2, [%[w]], #16\n\t"
      "vmladava.s8 r10, q1, q3\n\t"
      "vmladava.s8 r4, q0, q2\n\t"
      "vldrb.u8    q3, [%[w]], #16\n\t"
      "vmladava.s8 r12, q1, q2\n\t"
      "vmladava.s8 r6, q0, q3\n\t"
      "vmladava.s8 lr, q1, q3\n\t"
      "subs        r7, r7, #1\n\t"
      "bne         1b\n\t"
      "subs        %[x], %[x], %[bytes]\n\t"
      "strd        r0, r2, [%[out]]\n\t"
      "strd        r4, r6, [%[out], #8]\n\t"
      "strd        r8, r10, [%[out], #272]\n\t"
      "strd        r12, lr, [%[out], #280]\n\t"
      "adds        %[out], %[out], #16\n\t"
      "subs        %[g], %[g], #1\n\t"
      "bne         2b\n\t"
      : [x] "+r"(px), [w] "+r"(pw), [g] "+r"(g), [out] "+r"(out)
      : [bytes] "r"(bytes)
      : "cc", "memory", "r0", "r2", "r4", "r6", "r7", "r8", "r10", "r12", "lr", "d0", "d1", "d2",
        "d3", "d4", "d5", "d6", "d7");
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
// (an odd last row with itself; its results are dropped): the pair's A interleaved into a
// zero-padded buffer, the biases into the sum rows, all the block's groups summed by
// DotRowPair, each row's sums requantized together.
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  const size_t k16 = std::max<size_t>(16, (p.k + 15) & ~size_t{15});
  if (k16 > kGemmS8MaxK16) {
    cortex_m_dsp::GemmS8(p, a, b, y);
    return;
  }
  alignas(16) int8_t panel[kGemmS8PanelBytes];  // VST4.32 stores words
  alignas(16) int8_t pair[2 * kGemmS8MaxK16];
  alignas(16) int32_t rows[2 * kRowsPitch];
  const size_t block_cols = std::min(kGemmS8BlockCols, kGemmS8PanelBytes / (4 * k16) * 4);
  const size_t chunks = k16 / 16;
  const mve_pred16_t tail = vctp8q(static_cast<uint32_t>(p.k - (chunks - 1) * 16));
  for (size_t j0 = 0; j0 < p.n; j0 += block_cols) {
    const size_t cols = std::min(block_cols, p.n - j0);
    const size_t groups = (cols + 3) / 4;
    PackColumns(b, p.ldb, p.k, k16, j0, cols, panel);
    for (size_t i = 0; i < p.m; i += 2) {
      const size_t i1 = std::min(i + 1, p.m - 1);
      const int8_t* a0 = a + i * p.lda;
      const int8_t* a1 = a + i1 * p.lda;
      for (size_t c = 0; c + 1 < chunks; ++c) {
        vstrbq_s8(pair + 32 * c, vldrbq_s8(a0 + 16 * c));
        vstrbq_s8(pair + 32 * c + 16, vldrbq_s8(a1 + 16 * c));
      }
      const size_t last = 16 * (chunks - 1);  // k = 0: one chunk of zeros (tail = 0)
      vstrbq_s8(pair + 2 * last, vldrbq_z_s8(a0 + last, tail));
      vstrbq_s8(pair + 2 * last + 16, vldrbq_z_s8(a1 + last, tail));
      const int32x4_t b0 = vdupq_n_s32(p.bias != nullptr ? p.bias[i] : 0);
      const int32x4_t b1 = vdupq_n_s32(p.bias != nullptr ? p.bias[i1] : 0);
      for (size_t g = 0; g < groups; ++g) {
        vstrwq_s32(rows + 4 * g, b0);
        vstrwq_s32(rows + kRowsPitch + 4 * g, b1);
      }
      DotRowPair(pair, 2 * k16, panel, groups, rows);
      RequantRowMve(rows, cols, p.multiplier[i], p.shift[i], p.y_zero_point, p.act_min, p.act_max,
                    y + i * p.ldy + j0);
      if (i1 != i)
        RequantRowMve(rows + kRowsPitch, cols, p.multiplier[i1], p.shift[i1], p.y_zero_point,
                      p.act_min, p.act_max, y + i1 * p.ldy + j0);
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
