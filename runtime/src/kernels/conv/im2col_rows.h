// The im2col loop, once for float (padding 0) and int8 (padding the input's zero point):
// col[(c·kh + r)·kw + s, oh·out_w + ow] = x[c, oh·sh − pt + r·dh, ow·sw − pl + s·dw], `pad`
// outside the image, for the group's in_c/group channels (and a window of output rows). Per tap and output row the in-image
// columns are one range (ValidColumns): copied, the rest filled. Pure data movement.
#pragma once
#include <algorithm>
#include <cstring>

#include "kernels/conv/valid_columns.h"

namespace edgefold::kernels::ref {

// The in-image run of one tap and output row: `count` values of `in` taken every `stride`;
// `in_end` ends the channel's plane (a wide copy must not read past it). SIMD levels pass
// their own copy (simd/int8_simd.h: masked or de-interleaving byte loads).
struct PlainRunCopy {
  template <class T>
  void operator()(T* dst, const T* in, size_t count, size_t stride, const T* /*in_end*/) const {
    if (stride == 1) {
      std::memcpy(dst, in, count * sizeof(T));
    } else if (stride == 2) {  // a constant stride the compiler vectorizes
      for (size_t j = 0; j < count; ++j) dst[j] = in[2 * j];
    } else {
      for (size_t j = 0; j < count; ++j, in += stride) dst[j] = *in;
    }
  }
};

// Output rows [row0, row0 + rows) only (default: all): col then has rows·out_w columns.
template <class T, class CopyRun = PlainRunCopy>
void Im2colRows(const Conv2dShape& s, const T* x_group, T pad, T* col, size_t row0 = 0,
                size_t rows = ~size_t{0}, CopyRun copy_run = CopyRun()) {
  rows = std::min(rows, s.out_h - std::min(row0, s.out_h));
  const size_t channels = s.in_c / s.group, out_plane = rows * s.out_w;
  for (size_t c = 0; c < channels; ++c)
    for (size_t r = 0; r < s.kh; ++r)
      for (size_t t = 0; t < s.kw; ++t) {
        T* row = col + ((c * s.kh + r) * s.kw + t) * out_plane;
        // Input column of output ow: ow·sw + off_w, off_w may be negative.
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        size_t lo = 0, hi = 0;
        ValidColumns(s, off_w, &lo, &hi);
        for (size_t oh = row0; oh < row0 + rows; ++oh) {
          T* dst = row + (oh - row0) * s.out_w;
          const long ih =
              static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= static_cast<long>(s.in_h) || lo == hi) {
            std::fill_n(dst, s.out_w, pad);
            continue;
          }
          const T* in = x_group + (c * s.in_h + static_cast<size_t>(ih)) * s.in_w +
                        (static_cast<long>(lo * s.stride_w) + off_w);
          std::fill_n(dst, lo, pad);
          copy_run(dst + lo, in, hi - lo, s.stride_w, x_group + (c + 1) * s.in_h * s.in_w);
          std::fill_n(dst + hi, s.out_w - hi, pad);
        }
      }
}

}  // namespace edgefold::kernels::ref
