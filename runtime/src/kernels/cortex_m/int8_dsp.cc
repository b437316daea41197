// int8 GEMM with the DSP extension's dual 16-bit MACs, the row requantization it shares with
// the depthwise convolution (int8_dsp_depthwise.cc), and Quantize (int8_dsp.h).
//   SXTB16(w)        = (int16 w.byte0, int16 w.byte2)
//   SXTB16(w ror 8)  = (int16 w.byte1, int16 w.byte3)
//   SMLAD(x, y, acc) = acc + x.lo·y.lo + x.hi·y.hi
// A word of four int8 k values thus splits into the pairs (q, q+2) and (q+1, q+3); the other
// operand is arranged in the same pairs, so each SMLAD adds two exact products.
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include <algorithm>

#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {
namespace {

EDGEFOLD_DSP_INLINE uint32_t Pair(int32_t lo, int32_t hi) {
  return static_cast<uint16_t>(lo) | static_cast<uint32_t>(hi) << 16;
}

// Packs B[0:kc, c0] and B[0:kc, c1] (zero-padded to a multiple of 4 values of k): per 4 k,
// the words (b0[q], b0[q+2]), (b1[q], b1[q+2]), (b0[q+1], b0[q+3]), (b1[q+1], b1[q+3]).
void PackColumnPair(const int8_t* b, size_t ldb, size_t kc, size_t c0, size_t c1, uint32_t* panel) {
  size_t q = 0;
  for (; q + 4 <= kc; q += 4, panel += 4, b += 4 * ldb) {
    const int8_t* b2 = b + 2 * ldb;
    panel[0] = Pair(b[c0], b2[c0]);
    panel[1] = Pair(b[c1], b2[c1]);
    panel[2] = Pair(b[ldb + c0], b2[ldb + c0]);
    panel[3] = Pair(b[ldb + c1], b2[ldb + c1]);
  }
  if (q == kc) return;
  int32_t v0[4], v1[4];
  for (size_t d = 0; d < 4; ++d) {
    v0[d] = q + d < kc ? b[d * ldb + c0] : 0;
    v1[d] = q + d < kc ? b[d * ldb + c1] : 0;
  }
  panel[0] = Pair(v0[0], v0[2]);
  panel[1] = Pair(v1[0], v1[2]);
  panel[2] = Pair(v0[1], v0[3]);
  panel[3] = Pair(v1[1], v1[3]);
}

// acc[2r + c] += A_r[q..q+3]·B[q..q+3, c] for the words w0 = A_0[q..q+3], w1 = A_1[q..q+3] and
// one group of four packed words (the k tail).
EDGEFOLD_DSP_INLINE void Mac2x2(uint32_t w0, uint32_t w1, const uint32_t* panel, int32_t& c00,
                                int32_t& c01, int32_t& c10, int32_t& c11) {
  const int32_t p0 = static_cast<int32_t>(panel[0]), p1 = static_cast<int32_t>(panel[1]);
  const int32_t p2 = static_cast<int32_t>(panel[2]), p3 = static_cast<int32_t>(panel[3]);
  const int32_t e0 = Even(w0), o0 = Odd(w0), e1 = Even(w1), o1 = Odd(w1);
  c00 = __smlad(e0, p0, __smlad(o0, p2, c00));
  c01 = __smlad(e0, p1, __smlad(o0, p3, c01));
  c10 = __smlad(e1, p0, __smlad(o1, p2, c10));
  c11 = __smlad(e1, p1, __smlad(o1, p3, c11));
}

// One group of four k in Dot2x2's loop: 16 instructions for 16 multiply-accumulates.
#define EDGEFOLD_DSP_GEMM_GROUP            \
  "ldr    %[w0], [%[a0]], #4\n\t"          \
  "ldr    %[w1], [%[a1]], #4\n\t"          \
  "ldrd   %[p0], %[p1], [%[pn]], #8\n\t"   \
  "sxtb16 %[e], %[w0]\n\t"                 \
  "smlad  %[c00], %[e], %[p0], %[c00]\n\t" \
  "smlad  %[c01], %[e], %[p1], %[c01]\n\t" \
  "sxtb16 %[e], %[w1]\n\t"                 \
  "smlad  %[c10], %[e], %[p0], %[c10]\n\t" \
  "smlad  %[c11], %[e], %[p1], %[c11]\n\t" \
  "ldrd   %[p0], %[p1], [%[pn]], #8\n\t"   \
  "sxtb16 %[e], %[w0], ror #8\n\t"         \
  "smlad  %[c00], %[e], %[p0], %[c00]\n\t" \
  "smlad  %[c01], %[e], %[p1], %[c01]\n\t" \
  "sxtb16 %[e], %[w1], ror #8\n\t"         \
  "smlad  %[c10], %[e], %[p0], %[c10]\n\t" \
  "smlad  %[c11], %[e], %[p1], %[c11]\n\t"

// acc[2r + c] += Σ_{q<kc} A_r[q]·B[q, c] for the rows a0, a1 and the packed column pair.
// The loop over whole groups of four k is written out (two groups an iteration, an odd one
// first): GCC spills two of the accumulators of the C version (13 registers are live: 4 sums,
// 3 pointers, a count, 5 operands). A is read with unaligned LDRs.
void Dot2x2(const int8_t* a0, const int8_t* a1, const uint32_t* panel, size_t kc, int32_t acc[4]) {
  int32_t c00 = acc[0], c01 = acc[1], c10 = acc[2], c11 = acc[3];
  size_t groups = kc / 4;
  if (groups != 0) {
    uint32_t w0, w1, p0, p1, e;
    __asm__ volatile(
        "lsrs   %[n], %[n], #1\n\t"
        "bcc    1f\n\t" EDGEFOLD_DSP_GEMM_GROUP
        "cmp    %[n], #0\n\t"
        "beq    2f\n\t"
        "1:\n\t" EDGEFOLD_DSP_GEMM_GROUP EDGEFOLD_DSP_GEMM_GROUP
        "subs   %[n], %[n], #1\n\t"
        "bne    1b\n\t"
        "2:\n\t"
        : [c00] "+r"(c00), [c01] "+r"(c01), [c10] "+r"(c10), [c11] "+r"(c11), [a0] "+r"(a0),
          [a1] "+r"(a1), [pn] "+r"(panel), [n] "+r"(groups), [w0] "=&r"(w0), [w1] "=&r"(w1),
          [p0] "=&r"(p0), [p1] "=&r"(p1), [e] "=&r"(e)
        :
        : "cc", "memory");
  }
  if (kc % 4 != 0) Mac2x2(LoadTail(a0, kc % 4), LoadTail(a1, kc % 4), panel, c00, c01, c10, c11);
  acc[0] = c00;
  acc[1] = c01;
  acc[2] = c10;
  acc[3] = c11;
}

// Accumulator rows of GemmS8: row 1 starts this many bytes after row 0.
constexpr size_t kRowsPitchBytes = (kGemmS8BlockCols + 4) * sizeof(int32_t);
#define EDGEFOLD_DSP_ROWS_PITCH 272
#define EDGEFOLD_DSP_STR(x) #x
#define EDGEFOLD_DSP_XSTR(x) EDGEFOLD_DSP_STR(x)

// For each of `pairs` packed column pairs q (consecutive in the panel, groups × 4 words each):
// rows[0][2q..2q+1] = b0 + A_0·B[:, pair q], rows[1][2q..2q+1] = b1 + A_1·B[:, pair q], with
// Dot2x2's loop. The whole loop is asm so that its state between pairs lives in six stack
// slots (13 registers are taken by the sums): about 20 instructions a pair besides the MACs,
// where the C loop around Dot2x2 took 45. groups ≥ 1 (k a multiple of 4).
void Dot2x2Pairs(const int8_t* a0, const int8_t* a1, const uint32_t* panel, size_t groups,
                 size_t pairs, int32_t b0, int32_t b1, int32_t* rows) {
  int32_t c00, c01, c10, c11;
  uint32_t w0, w1, p0, p1, e, n;
  const int8_t *x0, *x1;
  __asm__ volatile(
      "1:\n\t"
      "ldr    %[c00], %[b0]\n\t"
      "mov    %[c01], %[c00]\n\t"
      "ldr    %[c10], %[b1]\n\t"
      "mov    %[c11], %[c10]\n\t"
      "ldr    %[a0], %[a0m]\n\t"
      "ldr    %[a1], %[a1m]\n\t"
      "ldr    %[n], %[gm]\n\t"
      "lsrs   %[n], %[n], #1\n\t"
      "bcc    2f\n\t"
      EDGEFOLD_DSP_GEMM_GROUP
      "cmp    %[n], #0\n\t"
      "beq    3f\n\t"
      "2:\n\t"
      EDGEFOLD_DSP_GEMM_GROUP
      EDGEFOLD_DSP_GEMM_GROUP
      "subs   %[n], %[n], #1\n\t"
      "bne    2b\n\t"
      "3:\n\t"
      "ldr    %[w0], %[rm]\n\t"
      "strd   %[c00], %[c01], [%[w0]]\n\t"
      "strd   %[c10], %[c11], [%[w0], #" EDGEFOLD_DSP_XSTR(EDGEFOLD_DSP_ROWS_PITCH) "]\n\t"
      "add    %[w0], %[w0], #8\n\t"
      "str    %[w0], %[rm]\n\t"
      "ldr    %[w0], %[qm]\n\t"
      "subs   %[w0], %[w0], #1\n\t"
      "str    %[w0], %[qm]\n\t"
      "bne    1b\n\t"
      : [c00] "=&r"(c00), [c01] "=&r"(c01), [c10] "=&r"(c10), [c11] "=&r"(c11), [a0] "=&r"(x0), [a1] "=&r"(x1),
        [pn] "+r"(panel), [n] "=&r"(n), [w0] "=&r"(w0), [w1] "=&r"(w1), [p0] "=&r"(p0), [p1] "=&r"(p1),
        [e] "=&r"(e), [rm] "+m"(rows), [qm] "+m"(pairs)
      : [b0] "m"(b0), [b1] "m"(b1), [a0m] "m"(a0), [a1m] "m"(a1), [gm] "m"(groups)
      : "cc", "memory");
}

}  // namespace

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
  return q;
}

namespace {

// One output: acc in `a` → the int8 value in `out` (SSAT'd, not yet clamped).
#define EDGEFOLD_DSP_RQ(a, out)      \
  "asr    %[lo], " a                 \
  ", #31\n\t"                        \
  "add    %[hi], %[high], %[lo]\n\t" \
  "smlal  %[lo], %[hi], " a          \
  ", %[m]\n\t"                       \
  "asr    " out                      \
  ", %[hi], %[t]\n\t"                \
  "ssat   " out ", #8, " out "\n\t"
#define EDGEFOLD_DSP_RQ_LOAD(out) "ldr    %[a], [%[acc]], #4\n\t" EDGEFOLD_DSP_RQ("%[a]", out)
#define EDGEFOLD_DSP_RQ_NEXT(lsb) \
  EDGEFOLD_DSP_RQ_LOAD("%[hi]") "bfi    %[q], %[hi], #" lsb ", #8\n\t"
// max(q, lo) and min(q, hi) on four bytes at once.
#define EDGEFOLD_DSP_RQ_CLAMP(tmp) \
  "ssub8  " tmp                    \
  ", %[q], %[mn]\n\t"              \
  "sel    %[q], %[q], %[mn]\n\t"   \
  "ssub8  " tmp                    \
  ", %[q], %[mx]\n\t"              \
  "sel    %[q], %[mx], %[q]\n\t"

// groups × 4 outputs of acc into y (four bytes a store; q.Fast()).
void RequantGroups(const int32_t* acc, size_t groups, const RowRequant& rq, const ActRequant& act,
                   int8_t* y) {
  uint32_t a, lo, hi, q;
  __asm__ volatile(
      "1:\n\t"
      EDGEFOLD_DSP_RQ_LOAD("%[q]")
      EDGEFOLD_DSP_RQ_NEXT("8")
      EDGEFOLD_DSP_RQ_NEXT("16")
      EDGEFOLD_DSP_RQ_NEXT("24")
      EDGEFOLD_DSP_RQ_CLAMP("%[a]")
      "str    %[q], [%[y]], #4\n\t"
      "subs   %[n], %[n], #1\n\t"
      "bne    1b\n\t"
      : [acc] "+r"(acc), [y] "+r"(y), [n] "+r"(groups), [a] "=&r"(a), [lo] "=&r"(lo), [hi] "=&r"(hi),
        [q] "=&r"(q)
      : [high] "r"(rq.high), [m] "r"(rq.multiplier), [t] "r"(rq.t), [mn] "r"(act.min4), [mx] "r"(act.max4)
      : "cc", "memory");
}

// y[0], y[1] from acc0, acc1 (q.Fast()): 16 instructions.
EDGEFOLD_DSP_INLINE void RequantPair(int32_t acc0, int32_t acc1, const RowRequant& rq,
                                     const ActRequant& act, int8_t* y) {
  uint32_t lo, hi, q;
  __asm__ volatile(
      EDGEFOLD_DSP_RQ("%[a0]", "%[q]")
          EDGEFOLD_DSP_RQ("%[a1]", "%[hi]") "bfi    %[q], %[hi], #8, #8\n\t" EDGEFOLD_DSP_RQ_CLAMP(
              "%[lo]") "strh   %[q], [%[y]]\n\t"
      : [lo] "=&r"(lo), [hi] "=&r"(hi), [q] "=&r"(q)
      : [a0] "r"(acc0), [a1] "r"(acc1), [y] "r"(y), [high] "r"(rq.high), [m] "r"(rq.multiplier),
        [t] "r"(rq.t), [mn] "r"(act.min4), [mx] "r"(act.max4)
      : "cc", "memory");
}

}  // namespace

void RequantRow(const int32_t* acc, size_t n, const RowRequant& q, const ActRequant& act,
                int8_t* y) {
  if (!q.Fast()) {
    for (size_t j = 0; j < n; ++j)
      y[j] = RequantizeS8(acc[j], q.multiplier, q.shift, act.zero_point, act.act_min, act.act_max);
    return;
  }
  const size_t groups = n / 4, rest = n % 4;
  if (groups != 0) RequantGroups(acc, groups, q, act, y);
  if (rest == 0) return;
  uint32_t w;  // the last group's bytes (acc is readable that far)
  RequantGroups(acc + 4 * groups, 1, q, act, reinterpret_cast<int8_t*>(&w));
  int8_t* tail = y + 4 * groups;
  tail[0] = static_cast<int8_t>(w);
  if (rest > 1) tail[1] = static_cast<int8_t>(w >> 8);
  if (rest > 2) tail[2] = static_cast<int8_t>(w >> 16);
}

// Row blocks of kGemmS8RowBlock rows (their requantization set up once), then column blocks of
// up to kGemmS8BlockCols columns, as many as one panel of kGemmS8PanelK words holds (k = 8: 64
// columns; k = 129 … 256: 2), packed in column pairs (an odd last column paired with itself).
// Row pairs (an odd last row with itself) sum each column pair in registers; a block's sums
// go to two rows of accumulators for RequantRow, a single pair's straight to RequantPair. The
// duplicates' results are dropped. k above kGemmS8PanelK: one column pair a block, the partial
// sums of the row block wait on the stack between panels of k.
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  uint32_t panel[kGemmS8PanelK];  // 1 KiB
  int32_t partial[kGemmS8RowBlock * 2];
  int32_t rows[2][kGemmS8BlockCols + 4];
  static_assert(sizeof(rows[0]) == kRowsPitchBytes && kRowsPitchBytes == EDGEFOLD_DSP_ROWS_PITCH);
  RowRequant rq[kGemmS8RowBlock];
  const ActRequant act = MakeActRequant(p.y_zero_point, p.act_min, p.act_max);
  const size_t kc4 = std::max<size_t>(4, (std::min(p.k, kGemmS8PanelK) + 3) & ~size_t{3});
  const size_t block_cols =
      p.k <= kGemmS8PanelK ? std::min(kGemmS8BlockCols, 2 * (kGemmS8PanelK / kc4)) : 2;
  for (size_t i0 = 0; i0 < p.m; i0 += kGemmS8RowBlock) {
    const size_t i_end = std::min(p.m, i0 + kGemmS8RowBlock);
    for (size_t i = i0; i < i_end; ++i)
      rq[i - i0] = MakeRowRequant(p.multiplier[i], p.shift[i], act);
    for (size_t j0 = 0; j0 < p.n; j0 += block_cols) {
      const size_t cols = std::min(block_cols, p.n - j0), pairs = (cols + 1) / 2;
      for (size_t k0 = 0; k0 < p.k || k0 == 0; k0 += kGemmS8PanelK) {
        const size_t kc = std::min(kGemmS8PanelK, p.k - k0), stride = (kc + 3) & ~size_t{3};
        const bool first = k0 == 0, last = k0 + kc >= p.k;
        for (size_t q = 0; q < pairs; ++q)
          PackColumnPair(b + k0 * p.ldb, p.ldb, kc, j0 + 2 * q, std::min(j0 + 2 * q + 1, p.n - 1),
                         panel + q * stride);
        for (size_t i = i0; i < i_end; i += 2) {
          const size_t i1 = std::min(i + 1, p.m - 1);  // < i_end: kGemmS8RowBlock is even
          const RowRequant &q0 = rq[i - i0], &q1 = rq[i1 - i0];
          const int8_t* a0 = a + i * p.lda + k0;
          const int8_t* a1 = a0 + (i1 - i) * p.lda;
          const int32_t b0 = p.bias != nullptr ? p.bias[i] : 0,
                        b1 = p.bias != nullptr ? p.bias[i1] : 0;
          if (first && last && kc % 4 == 0 && kc != 0)
            Dot2x2Pairs(a0, a1, panel, kc / 4, pairs, b0, b1, rows[0]);
          else
            for (size_t q = 0; q < pairs; ++q) {
              int32_t acc[4] = {b0, b0, b1, b1};
              if (!first) std::memcpy(acc, partial + 2 * (i - i0), sizeof(acc));
              Dot2x2(a0, a1, panel + q * stride, kc, acc);
              if (!last) {
                std::memcpy(partial + 2 * (i - i0), acc, sizeof(acc));
                continue;
              }
              rows[0][2 * q] = acc[0], rows[0][2 * q + 1] = acc[1];
              rows[1][2 * q] = acc[2], rows[1][2 * q + 1] = acc[3];
            }
          if (!last) continue;
          int8_t* y0 = y + i * p.ldy + j0;
          if (cols == 2 && q0.Fast() && q1.Fast()) {
            RequantPair(rows[0][0], rows[0][1], q0, act, y0);
            if (i1 != i) RequantPair(rows[1][0], rows[1][1], q1, act, y + i1 * p.ldy + j0);
            continue;
          }
          RequantRow(rows[0], cols, q0, act, y0);
          if (i1 != i) RequantRow(rows[1], cols, q1, act, y + i1 * p.ldy + j0);
        }
      }
    }
  }
}

#if defined(EDGEFOLD_HAVE_QUANTIZE_DSP)
void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n) {
  const float inv = p.inv_scale;
  const int32_t zp = p.zero_point;
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
