#include <algorithm>

#include "kernels/conv/valid_columns.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// The adjoint of Im2col (conv/im2col.cc): for every (c, r, t, oh, ow) whose input position
//   ih = oh·sh − pt + r·dh,  iw = ow·sw − pl + t·dw
// lies in the image, x[c, ih, iw] += col[(c·kh + r)·kw + t, oh·out_w + ow]. Padding taps are
// dropped. So ⟨im2col(x), col⟩ = ⟨x, col2im(col)⟩ for every x and col. The conv backward
// (dx) and ConvTranspose's scatter-add (ops/conv_transpose.cc) both run it; per tap the
// in-image columns are one range, so the inner loop has no bounds test.
void Col2im(const Conv2dShape& s, const float* col, float* x_group) {
  const size_t channels = s.in_c / s.group;
  const size_t out_plane = s.out_h * s.out_w;
  const long in_h = static_cast<long>(s.in_h);
  for (size_t c = 0; c < channels; ++c) {
    float* x_c = x_group + c * s.in_h * s.in_w;
    for (size_t r = 0; r < s.kh; ++r) {
      for (size_t t = 0; t < s.kw; ++t) {
        const float* row = col + ((c * s.kh + r) * s.kw + t) * out_plane;
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        size_t lo = 0, hi = 0;
        ValidColumns(s, off_w, &lo, &hi);
        for (size_t oh = 0; oh < s.out_h; ++oh) {
          const long ih =
              static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= in_h) continue;
          const float* src = row + oh * s.out_w;
          float* dst = x_c + static_cast<size_t>(ih) * s.in_w + off_w;  // column ow at dst[ow·sw]
          for (size_t ow = lo; ow < hi; ++ow) dst[ow * s.stride_w] += src[ow];
        }
      }
    }
  }
}

}  // namespace edgefold::kernels::ref
