// int8 GEMM and depthwise convolution with the DSP extension's dual 16-bit MACs (int8_dsp.h).
//   SXTB16(w)        = (int16 w.byte0, int16 w.byte2)
//   SXTB16(w ror 8)  = (int16 w.byte1, int16 w.byte3)
//   SMLAD(x, y, acc) = acc + x.lo·y.lo + x.hi·y.hi
// A word of four int8 k values thus splits into the pairs (q, q+2) and (q+1, q+3); the other
// operand is arranged in the same pairs, so each SMLAD adds two exact products.
#include "kernels/ref/int8_dsp.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include <arm_acle.h>

#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_scratch.h"
#include "kernels/reference.h"

namespace edgefold::kernels::dsp {
namespace {

// Firmware is built for size (-Os), where GCC keeps even these out of line: the hot helpers
// are always inlined, the loops that call RequantizeS8 flattened.
#define EDGEFOLD_DSP_INLINE inline __attribute__((always_inline))
#define EDGEFOLD_DSP_FLATTEN __attribute__((flatten))

EDGEFOLD_DSP_INLINE uint32_t Load32(const int8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));   // unaligned LDR (allowed on ARMv7E-M)
  return v;
}
EDGEFOLD_DSP_INLINE int32_t Even(uint32_t w) { return __sxtb16(static_cast<int32_t>(w)); }
EDGEFOLD_DSP_INLINE int32_t Odd(uint32_t w) { return __sxtb16(static_cast<int32_t>((w >> 8) | (w << 24))); }
EDGEFOLD_DSP_INLINE uint32_t Pair(int32_t lo, int32_t hi) {
  return static_cast<uint16_t>(lo) | static_cast<uint32_t>(hi) << 16;
}
// The first n < 4 bytes of p as a word, the rest zero (a k tail: no read past the row).
EDGEFOLD_DSP_INLINE uint32_t LoadTail(const int8_t* p, size_t n) {
  uint32_t w = 0;
  for (size_t d = 0; d < n; ++d) w |= static_cast<uint32_t>(static_cast<uint8_t>(p[d])) << (8 * d);
  return w;
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
EDGEFOLD_DSP_INLINE void Mac2x2(uint32_t w0, uint32_t w1, const uint32_t* panel, int32_t& c00, int32_t& c01,
                                int32_t& c10, int32_t& c11) {
  const int32_t p0 = static_cast<int32_t>(panel[0]), p1 = static_cast<int32_t>(panel[1]);
  const int32_t p2 = static_cast<int32_t>(panel[2]), p3 = static_cast<int32_t>(panel[3]);
  const int32_t e0 = Even(w0), o0 = Odd(w0), e1 = Even(w1), o1 = Odd(w1);
  c00 = __smlad(e0, p0, __smlad(o0, p2, c00));
  c01 = __smlad(e0, p1, __smlad(o0, p3, c01));
  c10 = __smlad(e1, p0, __smlad(o1, p2, c10));
  c11 = __smlad(e1, p1, __smlad(o1, p3, c11));
}

// One group of four k in Dot2x2's loop: 16 instructions for 16 multiply-accumulates.
#define EDGEFOLD_DSP_GEMM_GROUP                       \
  "ldr    %[w0], [%[a0]], #4\n\t"                      \
  "ldr    %[w1], [%[a1]], #4\n\t"                      \
  "ldrd   %[p0], %[p1], [%[pn]], #8\n\t"               \
  "sxtb16 %[e], %[w0]\n\t"                             \
  "smlad  %[c00], %[e], %[p0], %[c00]\n\t"             \
  "smlad  %[c01], %[e], %[p1], %[c01]\n\t"             \
  "sxtb16 %[e], %[w1]\n\t"                             \
  "smlad  %[c10], %[e], %[p0], %[c10]\n\t"             \
  "smlad  %[c11], %[e], %[p1], %[c11]\n\t"             \
  "ldrd   %[p0], %[p1], [%[pn]], #8\n\t"               \
  "sxtb16 %[e], %[w0], ror #8\n\t"                     \
  "smlad  %[c00], %[e], %[p0], %[c00]\n\t"             \
  "smlad  %[c01], %[e], %[p1], %[c01]\n\t"             \
  "sxtb16 %[e], %[w1], ror #8\n\t"                     \
  "smlad  %[c10], %[e], %[p0], %[c10]\n\t"             \
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
        "bcc    1f\n\t"
        EDGEFOLD_DSP_GEMM_GROUP
        "cmp    %[n], #0\n\t"
        "beq    2f\n\t"
        "1:\n\t"
        EDGEFOLD_DSP_GEMM_GROUP
        EDGEFOLD_DSP_GEMM_GROUP
        "subs   %[n], %[n], #1\n\t"
        "bne    1b\n\t"
        "2:\n\t"
        : [c00] "+r"(c00), [c01] "+r"(c01), [c10] "+r"(c10), [c11] "+r"(c11), [a0] "+r"(a0), [a1] "+r"(a1),
          [pn] "+r"(panel), [n] "+r"(groups), [w0] "=&r"(w0), [w1] "=&r"(w1), [p0] "=&r"(p0), [p1] "=&r"(p1),
          [e] "=&r"(e)
        :
        : "cc", "memory");
  }
  if (kc % 4 != 0) Mac2x2(LoadTail(a0, kc % 4), LoadTail(a1, kc % 4), panel, c00, c01, c10, c11);
  acc[0] = c00;
  acc[1] = c01;
  acc[2] = c10;
  acc[3] = c11;
}

// Row i's outputs at columns j (acc0) and, if two, j + 1 (acc1).
EDGEFOLD_DSP_INLINE void StoreRow(const GemmS8Params& p, size_t i, size_t j, int32_t acc0, int32_t acc1,
                                   bool two, int8_t* y) {
  const int32_t m = p.multiplier[i], sh = p.shift[i];
  int8_t* out = y + i * p.ldy + j;
  out[0] = RequantizeS8(acc0, m, sh, p.y_zero_point, p.act_min, p.act_max);
  if (two) out[1] = RequantizeS8(acc1, m, sh, p.y_zero_point, p.act_min, p.act_max);
}

}  // namespace

// Column pairs (an odd last column is paired with itself), row pairs (an odd last row with
// itself); the duplicate's results are dropped. k ≤ kGemmS8PanelK: one panel per column pair,
// every row pair summed in registers. Larger k: row blocks, partial sums on the stack.
EDGEFOLD_DSP_FLATTEN void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  uint32_t panel[kGemmS8PanelK];   // kGemmS8PanelK/4 groups of 4 words: 1 KiB
  int32_t partial[kGemmS8RowBlock * 2];
  const size_t rows_per_pass = p.k <= kGemmS8PanelK ? p.m : kGemmS8RowBlock;
  for (size_t j = 0; j < p.n; j += 2) {
    const size_t j1 = std::min(j + 1, p.n - 1);
    for (size_t i0 = 0; i0 < p.m; i0 += rows_per_pass) {
      const size_t i_end = std::min(p.m, i0 + rows_per_pass);
      for (size_t k0 = 0; k0 < p.k || k0 == 0; k0 += kGemmS8PanelK) {
        const size_t kc = std::min(kGemmS8PanelK, p.k - k0);
        const bool first = k0 == 0, last = k0 + kc >= p.k;
        PackColumnPair(b + k0 * p.ldb, p.ldb, kc, j, j1, panel);
        for (size_t i = i0; i < i_end; i += 2) {
          const size_t i1 = std::min(i + 1, p.m - 1);
          int32_t acc[4];
          if (first) {
            acc[0] = acc[1] = p.bias != nullptr ? p.bias[i] : 0;
            acc[2] = acc[3] = p.bias != nullptr ? p.bias[i1] : 0;
          } else {
            std::memcpy(acc, partial + 2 * (i - i0), sizeof(acc));
          }
          const int8_t* a0 = a + i * p.lda + k0;
          Dot2x2(a0, a0 + (i1 - i) * p.lda, panel, kc, acc);
          if (!last) {
            std::memcpy(partial + 2 * (i - i0), acc, sizeof(acc));
            continue;
          }
          StoreRow(p, i, j, acc[0], acc[1], j1 != j, y);
          if (i1 != i) StoreRow(p, i1, j, acc[2], acc[3], j1 != j, y);
        }
      }
    }
  }
}

namespace {

// Group g's taps (columns 4g..4g+3) of kh rows for the outputs (ow, ow + 1): x = the plane at
// (oh, ow + 4g), wp = two words per row. 12 instructions per row:
//   acc0 += SMLAD(even(x[0..3]), (w_t, w_t+2)) + SMLAD(odd(x[0..3]), (w_t+1, w_t+3))
//   acc1 += SMLAD(odd(x[0..3]), (w_t, w_t+2))  + SMLAD(even(x[2..5]), (w_t+1, w_t+3))
EDGEFOLD_DSP_INLINE void RowsGroup(const int8_t* x, size_t pitch, const uint32_t* wp, size_t kh,
                                    int32_t& acc0, int32_t& acc1) {
  uint32_t v, v2, we, wo, e;
  __asm__ volatile(
      "1:\n\t"
      "ldr    %[v], [%[x]]\n\t"
      "ldr    %[v2], [%[x], #2]\n\t"
      "ldrd   %[we], %[wo], [%[w]], #8\n\t"
      "add    %[x], %[x], %[pitch]\n\t"
      "sxtb16 %[e], %[v]\n\t"
      "smlad  %[a0], %[e], %[we], %[a0]\n\t"
      "sxtb16 %[e], %[v], ror #8\n\t"
      "smlad  %[a0], %[e], %[wo], %[a0]\n\t"
      "smlad  %[a1], %[e], %[we], %[a1]\n\t"
      "sxtb16 %[e], %[v2]\n\t"
      "smlad  %[a1], %[e], %[wo], %[a1]\n\t"
      "subs   %[n], %[n], #1\n\t"
      "bne    1b\n\t"
      : [a0] "+r"(acc0), [a1] "+r"(acc1), [x] "+r"(x), [w] "+r"(wp), [n] "+r"(kh), [v] "=&r"(v),
        [v2] "=&r"(v2), [we] "=&r"(we), [wo] "=&r"(wo), [e] "=&r"(e)
      : [pitch] "r"(pitch)
      : "cc", "memory");
}

// One channel, dilation 1, over the zp-padded plane (pitch bytes a row), in steps of two
// plane columns: stride 1 takes the outputs (ow, ow + 1) of a step, stride 2 (sw) only ow, and
// stride sh moves sh plane rows an output row. The taps go in groups of four columns
// (RowsGroup; taps past kw have weight 0). Reads run up to 5 bytes past a row: the plane's
// slack. The parameters are locals because the asm's memory clobber would reload them from rq.
EDGEFOLD_DSP_FLATTEN void DepthwiseChannel(const Conv2dShape& s, const int8_t* pl, size_t pitch,
                                           const uint32_t* wp, size_t groups, const GemmS8Params& rq,
                                           size_t c, int8_t* yc) {
  const int32_t bias = rq.bias != nullptr ? rq.bias[c] : 0, m = rq.multiplier[c], sh = rq.shift[c];
  const int32_t zp = rq.y_zero_point, lo = rq.act_min, hi = rq.act_max;
  const size_t out_h = s.out_h, out_w = s.out_w, kh = s.kh, row_step = s.stride_h * pitch;
  const size_t step = 3 - s.stride_w, second_end = s.stride_w == 1 ? out_w : 0, group_cols = 4 * groups;
  for (size_t oh = 0; oh < out_h; ++oh) {
    int8_t* out = yc + oh * out_w;
    const int8_t* x = pl + oh * row_step;
    for (size_t ow = 0; ow < out_w; ow += step, x += 2) {
      int32_t acc0 = bias, acc1 = bias;
      RowsGroup(x, pitch, wp, kh, acc0, acc1);
      if (groups > 1)
        for (size_t col = 4; col < group_cols; col += 4)   // group col / 4
          RowsGroup(x + col, pitch, wp + 2 * kh * (col / 4), kh, acc0, acc1);
      out[ow] = RequantizeS8(acc0, m, sh, zp, lo, hi);
      if (ow + 1 < second_end) out[ow + 1] = RequantizeS8(acc1, m, sh, zp, lo, hi);
    }
  }
}

// Channel c's input into the plane (rows × pitch, image at (pad_top, pad_left)); the border
// is zp from the one fill per call, since every channel writes the same interior.
void CopyChannel(const Conv2dShape& s, const int8_t* xc, size_t rows, size_t pitch, int8_t* pl) {
  const size_t cols = s.pad_left < pitch ? std::min(s.in_w, pitch - s.pad_left) : 0;
  for (size_t h = 0; h < s.in_h && h + s.pad_top < rows; ++h) {
    const int8_t* src = xc + h * s.in_w;
    int8_t* dst = pl + (h + s.pad_top) * pitch + s.pad_left;
    size_t i = 0;   // a few bytes a row: words (unaligned LDR/STR), then bytes, no memcpy call
    for (; i + 4 <= cols; i += 4) {
      uint32_t v;
      std::memcpy(&v, src + i, sizeof(v));
      std::memcpy(dst + i, &v, sizeof(v));
    }
    for (; i < cols; ++i) dst[i] = src[i];
  }
}

}  // namespace

void Conv2dDepthwiseS8(const Conv2dShape& s, const int8_t* x, const int8_t* w, int8_t x_zero_point,
                       const GemmS8Params& rq, int8_t* plane, int8_t* y) {
  if (plane == nullptr || s.stride_h > 2 || s.stride_w > 2 || s.dilation_h != 1 || s.dilation_w != 1 ||
      s.kh * s.kw > kMaxDepthwiseS8Taps || s.out_w == 0) {
    ref::Conv2dDepthwiseS8Portable(s, x, w, x_zero_point, rq, plane, y);
    return;
  }
  // One plane of the padded input, whatever the stride: rows = out_h·sh + kh − 1 (one more than
  // the windows read when sh = 2), pitch = (out_w − 1)·sw + kw, within the phase planes' bytes
  // planned for strides up to 2, ConvS8DepthwisePlaneBytes (stride 1: the one phase plane).
  const size_t rows = s.out_h * s.stride_h + s.kh - 1, pitch = (s.out_w - 1) * s.stride_w + s.kw;
  const size_t groups = (s.kw + 3) / 4;
  uint32_t wp[2 * kMaxDepthwiseS8Taps];   // per group and tap row: (w_t, w_t+2), (w_t+1, w_t+3)
  std::memset(plane, x_zero_point, rows * pitch);
  for (size_t c = 0; c < s.out_c; ++c) {
    const int8_t* wc = w + c * s.kh * s.kw;
    for (size_t r = 0; r < s.kh; ++r)
      for (size_t gi = 0; gi < groups; ++gi) {   // taps 4gi…4gi+3 of row r, zeros past kw
        const int8_t* wt = wc + r * s.kw + 4 * gi;
        const size_t left = s.kw - 4 * gi;
        const uint32_t v = left >= 4 ? Load32(wt) : LoadTail(wt, left);
        wp[2 * (gi * s.kh + r)] = static_cast<uint32_t>(Even(v));
        wp[2 * (gi * s.kh + r) + 1] = static_cast<uint32_t>(Odd(v));
      }
    CopyChannel(s, x + c * s.in_h * s.in_w, rows, pitch, plane);
    DepthwiseChannel(s, plane, pitch, wp, groups, rq, c, y + c * s.out_h * s.out_w);
  }
}

#if defined(EDGEFOLD_HAVE_QUANTIZE_DSP)
void QuantizeS8(const QuantS8Params& p, const float* x, int8_t* y, size_t n) {
  const float inv = p.inv_scale;
  const int32_t zp = p.zero_point;
  for (size_t i = 0; i < n; ++i) {
    float q;
    int32_t r;
    __asm__("vcvtr.s32.f32 %[q], %[v]\n\tvmov %[r], %[q]" : [q] "=&t"(q), [r] "=r"(r) : [v] "t"(x[i] * inv));
    y[i] = static_cast<int8_t>(__ssat(__qadd(r, zp), 8));
  }
}
#endif

}  // namespace edgefold::kernels::dsp
#endif
