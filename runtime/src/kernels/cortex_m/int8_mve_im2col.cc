// Helium (MVE) int8 im2col (int8_mve.h): ref::Im2colS8's bytes, each output row written 16
// bytes a vector: the window's input bytes where the column is inside the image (a contiguous
// load at stride 1, a gather of every other byte at stride 2, both predicated to the valid
// columns [lo, hi) of ValidColumns, so nothing outside the row is read), the pad value elsewhere
// (VPSEL), stored under a tail predicate. No memcpy or fill calls per run: ResNet-8's rows are
// 8 … 32 bytes.
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>
#include <cstdint>

#include "kernels/conv/valid_columns.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_mve {

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
          const bool inside = ih >= 0 && ih < static_cast<long>(s.in_h) && lo < hi;
          // Address arithmetic in integers: the first vector's base may lie before the row
          // (its lanes there are inactive and not read).
          const uintptr_t in_row = reinterpret_cast<uintptr_t>(
              x_group + (c * s.in_h + static_cast<size_t>(inside ? ih : 0)) * s.in_w);
          for (size_t j = 0; j < s.out_w; j += 16) {
            const mve_pred16_t live = vctp8q(static_cast<uint32_t>(s.out_w - j));
            int8x16_t v = pad;
            if (inside && j < hi && j + 16 > lo) {
              const mve_pred16_t valid =
                  vctp8q(static_cast<uint32_t>(hi - j)) &
                  static_cast<mve_pred16_t>(~vctp8q(static_cast<uint32_t>(lo > j ? lo - j : 0)));
              const auto* base = reinterpret_cast<const int8_t*>(
                  in_row + static_cast<uintptr_t>(static_cast<long>(j * sw) + off_w));
              const int8x16_t x = sw == 1 ? vldrbq_z_s8(base, valid)
                                          : vldrbq_gather_offset_z_s8(base, every_other, valid);
              v = vpselq_s8(x, pad, valid);
            }
            vstrbq_p_s8(dst + j, v, live);
          }
        }
      }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
