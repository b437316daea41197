// Helium (MVE) int8 im2col (int8_mve.h): ref::Im2colS8's bytes. Per tap (c, r, t) the valid
// columns [lo, hi) (ValidColumns), their length's vector count and tail predicate (ByteRow) and
// the output rows whose input row lies in the image are worked out once; each such row is then
// its pad bytes on either side (a byte or two: a predicated store) and the valid run copied 16 bytes a vector (a
// contiguous load at stride 1, a gather of every other byte at stride 2), the other rows
// filled with the pad value by vectors. No memcpy or fill calls per run: ResNet-8's rows are
// 8 … 32 bytes.
#include "kernels/cortex_m/int8_mve.h"

#if defined(EDGEFOLD_HAVE_INT8_MVE)
#include <arm_mve.h>

#include <algorithm>
#include <cstdint>

#include "kernels/conv/valid_columns.h"
#include "kernels/cortex_m/int8_mve_rows.h"
#include "kernels/reference.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

// Output rows [oh0, oh1) of one tap's im2col row block `row` (out_w bytes a row, up to
// 16·kMaxVecs, the first at output row row0): rows [v0, v1) read input rows
// in0 + (oh − v0)·in_step,
// the others are all pad. Each row is whole vectors, the input
// loaded under the predicate of its valid lanes (a lane off reads nothing: the pad columns'
// positions before and after the input row are never touched) and the pad value selected
// into the other lanes (VPSEL); the last vector stored under the row's tail predicate.
// `in0` is the input column of output column 0 (off_w: before the row where the left pad is).
constexpr size_t kMaxVecs = 4;
template <size_t kStride>
void TapRows(const Conv2dShape& s, const int8_t* in0, size_t in_step, size_t lo, size_t hi,
             size_t oh0, size_t oh1, size_t v0, size_t v1, int8_t pad_value, int8_t* row) {
  const int8x16_t pad = vdupq_n_s8(pad_value);
  const uint8x16_t every_other = vidupq_n_u8(0, 2);  // 0, 2, …, 30
  const size_t out_w = s.out_w;
  const auto clamp16 = [](long n) { return static_cast<uint32_t>(n < 0 ? 0 : n > 16 ? 16 : n); };
  const int vecs = static_cast<int>((out_w + 15) / 16);
  mve_pred16_t valid[kMaxVecs];
  for (int v = 0; v < vecs; ++v)
    valid[v] = vctp8q(clamp16(static_cast<long>(hi) - 16 * v)) &
               static_cast<mve_pred16_t>(~vctp8q(clamp16(static_cast<long>(lo) - 16 * v)));
  const mve_pred16_t last = vctp8q(static_cast<uint32_t>(out_w - 16 * (vecs - 1)));
  const ByteRow full(out_w);
  int8_t* dst = row;
  size_t oh = oh0;
  for (; oh < v0; ++oh, dst += out_w) full.Fill(pad, dst);
  for (; oh < v1; ++oh, dst += out_w, in0 += in_step) {
    for (int v = 0; v < vecs; ++v) {
      const int8x16_t x = kStride == 1
                              ? vldrbq_z_s8(in0 + 16 * v, valid[v])
                              : vldrbq_gather_offset_z_s8(in0 + 32 * v, every_other, valid[v]);
      const int8x16_t y = vpselq_s8(x, pad, valid[v]);
      if (v + 1 < vecs)
        vstrbq_s8(dst + 16 * v, y);
      else
        vstrbq_p_s8(dst + 16 * v, y, last);
    }
  }
  for (; oh < oh1; ++oh, dst += out_w) full.Fill(pad, dst);
}

}  // namespace

void Im2colS8(const Conv2dShape& s, const int8_t* x_group, int8_t pad_value, size_t row0,
              size_t rows, int8_t* col) {
  if (s.stride_w > 2 || s.stride_w == 0 || s.stride_h == 0 || s.out_w > 16 * kMaxVecs) {
    ref::Im2colS8(s, x_group, pad_value, row0, rows, col);
    return;
  }
  row0 = std::min(row0, s.out_h);
  rows = std::min(rows, s.out_h - row0);
  const size_t channels = s.in_c / s.group, out_plane = rows * s.out_w, sw = s.stride_w;
  const long sh = static_cast<long>(s.stride_h), in_h = static_cast<long>(s.in_h);
  const long oh0 = static_cast<long>(row0), oh1 = static_cast<long>(row0 + rows);
  for (size_t c = 0; c < channels; ++c)
    for (size_t r = 0; r < s.kh; ++r) {
      // Input row of output row oh: oh·sh + off_h; valid for oh in [v0, v1).
      const long off_h = static_cast<long>(r * s.dilation_h) - static_cast<long>(s.pad_top);
      const long first = off_h >= 0 ? 0 : (-off_h + sh - 1) / sh;
      const long end = in_h - 1 - off_h >= 0 ? (in_h - 1 - off_h) / sh + 1 : 0;
      const long v0 = std::min(std::max(first, oh0), oh1);
      const long v1 = std::max(v0, std::min(end, oh1));
      for (size_t t = 0; t < s.kw; ++t) {
        int8_t* row = col + ((c * s.kh + r) * s.kw + t) * out_plane;
        // Input column of output ow: ow·sw + off_w, off_w may be negative.
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        size_t lo = 0, hi = 0;
        ref::ValidColumns(s, off_w, &lo, &hi);
        const bool any = lo < hi && v0 < v1;
        const size_t a = any ? static_cast<size_t>(v0) : static_cast<size_t>(oh1);
        const size_t b = any ? static_cast<size_t>(v1) : static_cast<size_t>(oh1);
        const int8_t* in_row =
            any ? x_group + (c * s.in_h + static_cast<size_t>(v0 * sh + off_h)) * s.in_w : x_group;
        const size_t in_step = static_cast<size_t>(sh) * s.in_w;
        const int8_t* in0 = in_row + off_w;  // output column 0's input column
        if (sw == 1)
          TapRows<1>(s, in0, in_step, lo, hi, row0, row0 + rows, a, b, pad_value, row);
        else
          TapRows<2>(s, in0, in_step, lo, hi, row0, row0 + rows, a, b, pad_value, row);
      }
    }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
