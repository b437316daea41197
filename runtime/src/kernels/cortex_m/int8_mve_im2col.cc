// Helium (MVE) int8 im2col (int8_mve.h): ref::Im2colS8's bytes. For the requested output rows,
// each input channel is copied into a pad-filled plane on the stack that covers every input
// position those rows' windows touch (as many output rows a plane as fit; the pad border is
// filled once per plane of rows: it sits at the same places for every channel); each tap's rows are then plain row copies out of the plane,
// 16 bytes a vector (a contiguous load at stride 1, a gather of every other byte at stride 2),
// the last vector under a tail predicate made once (ByteRow). No per-tap clipping: ResNet-8's
// rows are 8 … 32 bytes, of which the old per-row pad handling cost more than the copy.
// Rows wider than a plane holds (kPlaneBytes) and strides above 2 run the portable code.
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cortex_m/int8_mve_rows.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

constexpr size_t kPlaneBytes = 4096;

}  // namespace

void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
              size_t rows, int8_t* col) {
  row0 = std::min(row0, s.out_h);
  rows = std::min(rows, s.out_h - row0);
  if (rows == 0 || s.out_w == 0) return;
  const size_t sh = s.stride_h, sw = s.stride_w, dh = s.dilation_h, dw = s.dilation_w;
  // A plane of n output rows: input rows ih0 … ih0 + span(n) − 1, columns −pad_left …
  // pitch − pad_left − 1; as many output rows a plane as fit kPlaneBytes.
  const size_t pitch = (s.out_w - 1) * sw + (s.kw - 1) * dw + 1;
  const size_t window = (s.kh - 1) * dh + 1;
  const size_t fit_rows = kPlaneBytes / pitch;
  if (sw == 0 || sw > 2 || sh == 0 || fit_rows < window) {
    ref::Im2colS8(s, x_group, pad_value, row0, rows, col);
    return;
  }
  const size_t batch = (fit_rows - window) / sh + 1;
  alignas(16) int8_t plane[kPlaneBytes];
  const long in_h = static_cast<long>(s.in_h);
  const size_t c0 = std::min(s.pad_left, pitch);  // image columns [c0, c0 + copy) of a row
  const size_t copy = std::min(s.in_w, pitch - c0);
  const size_t channels = s.in_c / s.group, out_plane = rows * s.out_w;
  for (size_t i0 = 0; i0 < rows; i0 += batch) {
    const size_t n = std::min(batch, rows - i0);
    const long span = static_cast<long>((n - 1) * sh + window);
    const long ih0 = static_cast<long>((row0 + i0) * sh) - static_cast<long>(s.pad_top);
    // Plane rows [p0, p1) hold image rows, the rest stays pad.
    const size_t p0 = static_cast<size_t>(std::clamp(-ih0, 0L, span));
    const size_t p1 = static_cast<size_t>(std::clamp(in_h - ih0, static_cast<long>(p0), span));
    ByteRow(static_cast<size_t>(span) * pitch).Fill(vdupq_n_s8(pad_value), plane);
    int8_t* dst = col + i0 * s.out_w;
    for (size_t c = 0; c < channels; ++c) {
      const int8_t* x_row0 =
          x_group + (c * s.in_h + static_cast<size_t>(ih0 + static_cast<long>(p0))) * s.in_w;
      CopyRows<1>(x_row0, s.in_w, plane + p0 * pitch + c0, pitch, copy, p1 - p0);
      for (size_t r = 0; r < s.kh; ++r)
        for (size_t t = 0; t < s.kw; ++t, dst += out_plane) {
          const int8_t* tap = plane + r * dh * pitch + t * dw;
          if (sw == 1)
            CopyRows<1>(tap, sh * pitch, dst, s.out_w, s.out_w, n);
          else
            CopyRows<2>(tap, sh * pitch, dst, s.out_w, s.out_w, n);
        }
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
