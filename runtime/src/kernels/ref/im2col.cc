#include <cstring>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// col[(c·kh + r)·kw + s, oh·out_w + ow] = x[c, oh·sh − pt + r·dh, ow·sw − pl + s·dw]
// (0 outside the image), for c in the group's in_c/group channels. Pure data movement, so
// every ISA table shares this code.
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
        for (size_t oh = 0; oh < s.out_h; ++oh) {
          float* dst = row + oh * s.out_w;
          const long ih = static_cast<long>(oh * s.stride_h + r * s.dilation_h) -
                          static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= static_cast<long>(s.in_h)) {
            std::memset(dst, 0, s.out_w * sizeof(float));
            continue;
          }
          const float* src = x_c + static_cast<size_t>(ih) * s.in_w;
          for (size_t ow = 0; ow < s.out_w; ++ow) {
            const long iw = static_cast<long>(ow * s.stride_w) + off_w;
            dst[ow] = (iw >= 0 && iw < static_cast<long>(s.in_w)) ? src[iw] : 0.0f;
          }
        }
      }
    }
  }
}

}  // namespace edgefold::kernels::ref
