// int8 im2col for M-profile cores with the DSP extension (int8_dsp.h): ref::Im2colS8's bytes.
// Each output row's valid columns [lo, hi) (ValidColumns) are copied a word at a time (unaligned
// LDR/STR) at stride 1 and a byte at a time at stride 2, the pad columns on either side (a byte
// or two) stored singly, rows outside the image filled a word at a time. No memcpy or fill calls
// per run: ResNet-8's runs are 8 … 32 bytes, where a call cost more than the copy.
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include <algorithm>

#include "kernels/conv/valid_columns.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_dsp {
namespace {

// dst[0, n) = pad4's byte.
EDGEFOLD_DSP_INLINE void FillPad(int8_t* dst, size_t n, uint32_t pad4) {
  for (; n >= 4; n -= 4, dst += 4) std::memcpy(dst, &pad4, 4);
  for (; n != 0; --n) *dst++ = static_cast<int8_t>(pad4);
}

// dst[0, n) = in[0, n·sw) every sw-th byte, sw ∈ {1, 2}.
EDGEFOLD_DSP_INLINE void CopyRun(const int8_t* in, size_t n, size_t sw, int8_t* dst) {
  if (sw == 1) {
    for (; n >= 4; n -= 4, in += 4, dst += 4) std::memcpy(dst, in, 4);
    for (; n != 0; --n) *dst++ = *in++;
  } else {
    for (; n != 0; --n, in += 2) *dst++ = *in;
  }
}

}  // namespace

// GCC would turn the pad loops back into memset calls.
[[gnu::optimize("no-tree-loop-distribute-patterns")]] void Im2colS8(const Conv2dShape& s,
                                                                    const int8_t* x_group,
                                                                    int8_t pad_value, size_t row0,
                                                                    size_t rows, int8_t* col) {
  if (s.stride_w > 2 || s.stride_w == 0) {
    ref::Im2colS8(s, x_group, pad_value, row0, rows, col);
    return;
  }
  rows = std::min(rows, s.out_h - std::min(row0, s.out_h));
  const size_t channels = s.in_c / s.group, out_plane = rows * s.out_w, sw = s.stride_w;
  const uint32_t pad4 = 0x01010101u * static_cast<uint8_t>(pad_value);
  int8_t* row = col;
  for (size_t c = 0; c < channels; ++c)
    for (size_t r = 0; r < s.kh; ++r)
      for (size_t t = 0; t < s.kw; ++t, row += out_plane) {
        // Input column of output ow: ow·sw + off_w, off_w may be negative.
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        size_t lo = 0, hi = 0;
        ref::ValidColumns(s, off_w, &lo, &hi);
        int8_t* dst = row;
        for (size_t oh = row0; oh < row0 + rows; ++oh, dst += s.out_w) {
          const long ih =
              static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= static_cast<long>(s.in_h) || lo == hi) {
            FillPad(dst, s.out_w, pad4);
            continue;
          }
          const int8_t* in = x_group + (c * s.in_h + static_cast<size_t>(ih)) * s.in_w +
                             (static_cast<long>(lo * sw) + off_w);
          for (size_t j = 0; j < lo; ++j) dst[j] = pad_value;  // a pad's width: a byte or two
          CopyRun(in, hi - lo, sw, dst + lo);
          for (size_t j = hi; j < s.out_w; ++j) dst[j] = pad_value;
        }
      }
}

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
