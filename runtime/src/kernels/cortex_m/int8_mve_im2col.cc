// Helium (MVE) int8 im2col (int8_mve.h): ref::Im2colS8's bytes. Each output row's valid columns
// [lo, hi) (ValidColumns) are copied 16 bytes a vector (a contiguous load at stride 1, a gather
// of every other byte at stride 2, the last vector under a tail predicate), the pad columns on
// either side (a byte or two) stored singly, rows outside the image filled by vectors. No
// memcpy or fill calls per run: ResNet-8's rows are 8 … 32 bytes.
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>
#include <cstdint>

#include "kernels/conv/valid_columns.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

void FillPad(int8_t* dst, size_t n, int8x16_t pad) {
  for (size_t j = 0; j < n; j += 16)
    vstrbq_p_s8(dst + j, pad, vctp8q(static_cast<uint32_t>(n - j)));
}
// dst[0, n) = in[0, n).
void CopyRun(const int8_t* in, size_t n, int8_t* dst) {
  for (size_t j = 0; j < n; j += 16) {
    const mve_pred16_t live = vctp8q(static_cast<uint32_t>(n - j));
    vstrbq_p_s8(dst + j, vldrbq_z_s8(in + j, live), live);
  }
}
// dst[0, n) = in[0], in[2], …, in[2n − 2].
void GatherRun(const int8_t* in, uint8x16_t every_other, size_t n, int8_t* dst) {
  for (size_t j = 0; j < n; j += 16) {
    const mve_pred16_t live = vctp8q(static_cast<uint32_t>(n - j));
    vstrbq_p_s8(dst + j, vldrbq_gather_offset_z_s8(in + 2 * j, every_other, live), live);
  }
}

}  // namespace

void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
              size_t rows, int8_t* col) {
  if (s.stride_w > 2 || s.stride_w == 0) {
    ref::Im2colS8(s, x_group, pad_value, row0, rows, col);
    return;
  }
  rows = std::min(rows, s.out_h - std::min(row0, s.out_h));
  const size_t channels = s.in_c / s.group, out_plane = rows * s.out_w, sw = s.stride_w;
  const int8x16_t pad = vdupq_n_s8(pad_value);
  const uint8x16_t every_other = vidupq_n_u8(0, 2);  // 0, 2, …, 30
  for (size_t c = 0; c < channels; ++c)
    for (size_t r = 0; r < s.kh; ++r)
      for (size_t t = 0; t < s.kw; ++t) {
        int8_t* row = col + ((c * s.kh + r) * s.kw + t) * out_plane;
        // Input column of output ow: ow·sw + off_w, off_w may be negative.
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        size_t lo = 0, hi = 0;
        ref::ValidColumns(s, off_w, &lo, &hi);
        for (size_t oh = row0; oh < row0 + rows; ++oh) {
          int8_t* dst = row + (oh - row0) * s.out_w;
          const long ih =
              static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= static_cast<long>(s.in_h) || lo == hi) {
            FillPad(dst, s.out_w, pad);
            continue;
          }
          const int8_t* in = x_group + (c * s.in_h + static_cast<size_t>(ih)) * s.in_w +
                             (static_cast<long>(lo * sw) + off_w);
          for (size_t j = 0; j < lo; ++j) dst[j] = pad_value;  // a pad's width: a byte or two
          if (sw == 1)
            CopyRun(in, hi - lo, dst + lo);
          else
            GatherRun(in, every_other, hi - lo, dst + lo);
          for (size_t j = hi; j < s.out_w; ++j) dst[j] = pad_value;
        }
      }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
