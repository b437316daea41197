#include <algorithm>
#include <cstring>

#include "kernels/conv/valid_columns.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {

namespace {

// One output row: zeros left of lo and from hi on, the input row (strided) between them.
void CopyRow(const Conv2dShape& s, const float* src, long off_w, size_t lo, size_t hi, float* dst) {
  std::memset(dst, 0, lo * sizeof(float));
  const float* in = src + (static_cast<long>(lo * s.stride_w) + off_w);
  if (s.stride_w == 1) {
    std::memcpy(dst + lo, in, (hi - lo) * sizeof(float));
  } else {
    for (size_t ow = lo; ow < hi; ++ow, in += s.stride_w) dst[ow] = *in;
  }
  std::memset(dst + hi, 0, (s.out_w - hi) * sizeof(float));
}

}  // namespace

// col[(c·kh + r)·kw + s, oh·out_w + ow] = x[c, oh·sh − pt + r·dh, ow·sw − pl + s·dw]
// (0 outside the image), for c in the group's in_c/group channels. Pure data movement, so
// every ISA table shares this code. The in-image columns of a row are one range per tap.
void Im2col(const Conv2dShape& s, const float* x_group, float* col) {
  const size_t channels = s.in_c / s.group;
  const size_t out_plane = s.out_h * s.out_w;
  for (size_t c = 0; c < channels; ++c) {
    const float* x_c = x_group + c * s.in_h * s.in_w;
    for (size_t r = 0; r < s.kh; ++r) {
      for (size_t t = 0; t < s.kw; ++t) {
        float* row = col + ((c * s.kh + r) * s.kw + t) * out_plane;
        // Input column of output ow: ow·sw + off_w, off_w may be negative.
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        size_t lo = 0, hi = 0;
        ValidColumns(s, off_w, &lo, &hi);
        for (size_t oh = 0; oh < s.out_h; ++oh) {
          float* dst = row + oh * s.out_w;
          const long ih = static_cast<long>(oh * s.stride_h + r * s.dilation_h) -
                          static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= static_cast<long>(s.in_h)) {
            std::memset(dst, 0, s.out_w * sizeof(float));
            continue;
          }
          CopyRow(s, x_c + static_cast<size_t>(ih) * s.in_w, off_w, lo, hi, dst);
        }
      }
    }
  }
}

}  // namespace edgefold::kernels::ref
