// int8 im2col for M-profile cores with the DSP extension (int8_dsp.h): ref::Im2colS8's bytes.
// Per channel, tap row and output row the input row is found once; each tap column's valid
// outputs [lo, hi) (ValidColumns, once per call) are copied a word at a time (unaligned LDR/STR)
// at stride 1 and a byte at a time at stride 2, the pad columns on either side (a byte or two)
// stored singly, rows outside the image filled a word at a time. No memcpy or fill calls per run:
// ResNet-8's runs are 8 … 32 bytes, where a call cost more than the copy. 3-wide kernels with one
// pad column on the left and in_w = stride·out_w (3 × 3 convs at stride 1 and 2, "same" padding)
// on rows of whole output words write the three tap rows of an input row in one pass instead.
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include <algorithm>

#include "kernels/conv/valid_columns.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {
namespace {

constexpr size_t kMaxTapColumns = 16;  // wider kernels run the portable code

// dst[0, n) = pad4's byte.
EDGEFOLD_DSP_INLINE void FillPad(int8_t* dst, size_t n, uint32_t pad4) {
  for (; n >= 4; n -= 4, dst += 4) std::memcpy(dst, &pad4, 4);
  for (; n != 0; --n) *dst++ = static_cast<int8_t>(pad4);
}

// dst[0, n) = in[0, n): words, then a halfword and a byte (n's bits 1 and 0 in C and N).
EDGEFOLD_DSP_INLINE void CopyBytes(const int8_t* in, size_t n, int8_t* dst) {
  uint32_t t, w;
  __asm__ volatile(
      "lsrs   %[w], %[n], #2\n\t"
      "beq    2f\n\t"
      "1:\n\t"
      "ldr    %[t], [%[in]], #4\n\t"
      "str    %[t], [%[dst]], #4\n\t"
      "subs   %[w], %[w], #1\n\t"
      "bne    1b\n\t"
      "2:\n\t"
      "lsls   %[w], %[n], #31\n\t"
      "itt    cs\n\t"
      "ldrhcs %[t], [%[in]], #2\n\t"
      "strhcs %[t], [%[dst]], #2\n\t"
      "itt    mi\n\t"
      "ldrbmi %[t], [%[in]]\n\t"
      "strbmi %[t], [%[dst]]\n\t"
      : [in] "+r"(in), [dst] "+r"(dst), [t] "=&r"(t), [w] "=&r"(w)
      : [n] "r"(n)
      : "cc", "memory");
}

// The three tap rows of a 3-wide, stride-1, dilation-1 kernel with one pad column on either
// side (in_w = out_w = w, a multiple of 4) from one input row, each input word read once:
//   d1 = in,  d0 = [pad, in[0, w − 1)],  d2 = [in[1, w), pad]
// as byte shifts of consecutive words (w_{−1} = pad4 for d0's first byte, pad4 for d2's last).
EDGEFOLD_DSP_INLINE void Taps3Row(const int8_t* in, size_t w, uint32_t pad4, int8_t* d0, int8_t* d1,
                                  int8_t* d2) {
  uint32_t cur, prev = pad4, t;
  size_t words = w / 4;
  __asm__ volatile(
      "ldr    %[cur], [%[in]], #4\n\t"  // the first word: d0 and d1 only
      "str    %[cur], [%[d1]], #4\n\t"
      "lsl    %[t], %[cur], #8\n\t"
      "orr    %[t], %[t], %[prev], lsr #24\n\t"
      "str    %[t], [%[d0]], #4\n\t"
      "subs   %[n], %[n], #1\n\t"
      "beq    2f\n\t"
      "1:\n\t"
      "mov    %[prev], %[cur]\n\t"
      "ldr    %[cur], [%[in]], #4\n\t"
      "str    %[cur], [%[d1]], #4\n\t"
      "lsl    %[t], %[cur], #8\n\t"
      "orr    %[t], %[t], %[prev], lsr #24\n\t"
      "str    %[t], [%[d0]], #4\n\t"
      "lsr    %[t], %[prev], #8\n\t"
      "orr    %[t], %[t], %[cur], lsl #24\n\t"
      "str    %[t], [%[d2]], #4\n\t"
      "subs   %[n], %[n], #1\n\t"
      "bne    1b\n\t"
      "2:\n\t"
      "lsr    %[t], %[cur], #8\n\t"
      "orr    %[t], %[t], %[pad4], lsl #24\n\t"
      "str    %[t], [%[d2]]\n\t"
      : [in] "+r"(in), [d0] "+r"(d0), [d1] "+r"(d1), [d2] "+r"(d2), [n] "+r"(words),
        [cur] "=&r"(cur), [prev] "+&r"(prev), [t] "=&r"(t)
      : [pad4] "r"(pad4)
      : "cc", "memory");
}

// As Taps3Row at stride 2 (in_w = 2·w): per four outputs two input words a and b,
//   d1 = [a0 a2 b0 b2],  d2 = [a1 a3 b1 b3],  d0 = [the previous d2 word's last byte, d2's first three]
// (UXTB16 halves of a and b, packed by PKHBT; d0's first byte the pad).
EDGEFOLD_DSP_INLINE void Taps3Stride2Row(const int8_t* in, size_t w, uint32_t pad4, int8_t* d0,
                                         int8_t* d1, int8_t* d2) {
  uint32_t a, b, e, f, prev = pad4;
  size_t words = w / 4;
  __asm__ volatile(
      "1:\n\t"
      "ldr    %[a], [%[in]], #4\n\t"
      "ldr    %[b], [%[in]], #4\n\t"
      "uxtb16 %[e], %[a]\n\t"
      "orr    %[e], %[e], %[e], lsr #8\n\t"
      "uxtb16 %[f], %[b]\n\t"
      "orr    %[f], %[f], %[f], lsr #8\n\t"
      "pkhbt  %[e], %[e], %[f], lsl #16\n\t"
      "str    %[e], [%[d1]], #4\n\t"
      "uxtb16 %[e], %[a], ror #8\n\t"
      "orr    %[e], %[e], %[e], lsr #8\n\t"
      "uxtb16 %[f], %[b], ror #8\n\t"
      "orr    %[f], %[f], %[f], lsr #8\n\t"
      "pkhbt  %[e], %[e], %[f], lsl #16\n\t"
      "str    %[e], [%[d2]], #4\n\t"
      "lsl    %[a], %[e], #8\n\t"
      "orr    %[a], %[a], %[prev], lsr #24\n\t"
      "str    %[a], [%[d0]], #4\n\t"
      "mov    %[prev], %[e]\n\t"
      "subs   %[n], %[n], #1\n\t"
      "bne    1b\n\t"
      : [in] "+r"(in), [d0] "+r"(d0), [d1] "+r"(d1), [d2] "+r"(d2), [n] "+r"(words), [a] "=&r"(a),
        [b] "=&r"(b), [e] "=&r"(e), [f] "=&r"(f), [prev] "+&r"(prev)
      :
      : "cc", "memory");
}

}  // namespace

// GCC would turn the pad loops back into memset calls.
[[gnu::optimize("no-tree-loop-distribute-patterns")]] void Im2colS8(const Conv2dShape& s,
                                                                    const int8_t* x_group,
                                                                    int8_t pad_value, size_t row0,
                                                                    size_t rows, int8_t* col) {
  if (s.stride_w > 2 || s.stride_w == 0 || s.kw > kMaxTapColumns) {
    ref::Im2colS8(s, x_group, pad_value, row0, rows, col);
    return;
  }
  rows = std::min(rows, s.out_h - std::min(row0, s.out_h));
  const size_t channels = s.in_c / s.group, out_plane = rows * s.out_w, sw = s.stride_w;
  const uint32_t pad4 = 0x01010101u * static_cast<uint8_t>(pad_value);
  size_t lo[kMaxTapColumns], hi[kMaxTapColumns];
  long first[kMaxTapColumns];  // the input column of output lo[t], relative to the row
  for (size_t t = 0; t < s.kw; ++t) {
    // Input column of output ow: ow·sw + off_w, off_w may be negative.
    const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
    ref::ValidColumns(s, off_w, &lo[t], &hi[t]);
    first[t] = static_cast<long>(lo[t] * sw) + off_w;
  }
  // 3 × 3-like rows (kw = 3, dilation 1, one pad column on the left, in_w = stride·out_w, whole
  // words of output): every tap row of an input row at once (Taps3Row, Taps3Stride2Row).
  const bool taps3 = s.kw == 3 && s.dilation_w == 1 && s.pad_left == 1 && s.in_w == sw * s.out_w &&
                     s.out_w % 4 == 0 && s.out_w != 0;
  int8_t* tap_row = col;  // the col row of (c, r, t = 0)
  for (size_t c = 0; c < channels; ++c)
    for (size_t r = 0; r < s.kh; ++r, tap_row += s.kw * out_plane)
      for (size_t oh = row0; oh < row0 + rows; ++oh) {
        int8_t* dst = tap_row + (oh - row0) * s.out_w;
        const long ih =
            static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
        if (ih < 0 || ih >= static_cast<long>(s.in_h)) {
          for (size_t t = 0; t < s.kw; ++t, dst += out_plane) FillPad(dst, s.out_w, pad4);
          continue;
        }
        const int8_t* in_row = x_group + (c * s.in_h + static_cast<size_t>(ih)) * s.in_w;
        if (taps3) {
          if (sw == 1)
            Taps3Row(in_row, s.out_w, pad4, dst, dst + out_plane, dst + 2 * out_plane);
          else
            Taps3Stride2Row(in_row, s.out_w, pad4, dst, dst + out_plane, dst + 2 * out_plane);
          continue;
        }
        for (size_t t = 0; t < s.kw; ++t, dst += out_plane) {
          for (size_t j = 0; j < lo[t]; ++j) dst[j] = pad_value;  // a pad's width: a byte or two
          const int8_t* in = in_row + first[t];
          const size_t n = hi[t] - lo[t];
          if (sw == 1)
            CopyBytes(in, n, dst + lo[t]);
          else
            for (int8_t *d = dst + lo[t], *end = d + n; d != end; in += 2) *d++ = *in;
          for (size_t j = hi[t]; j < s.out_w; ++j) dst[j] = pad_value;
        }
      }
}

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
