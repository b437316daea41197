// Depthwise conv backward of one image, written once over the arch.
#pragma once
#include "kernels/conv/valid_columns.h"
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Tap-major: for channel c and tap (r, t), the output columns whose input column lies in the
// image are one range [lo, hi) (ValidColumns), so per output row oh (input row ih)
//   dx[c, ih, ow·sw + off] += w[c,r,t]·dy[c, oh, ow]     dw[c,r,t] += Σ x[c, ih, ow·sw + off]·dy[c, oh, ow]
// are an axpy and a dot product over ow, contiguous when sw = 1 (vectorized; other strides run
// the same loop in scalar). Same terms as ref::Conv2dDepthwiseBackward, summed in another
// order: equal within float rounding.
template <class Arch>
void Conv2dDepthwiseBackward(const Conv2dShape& s, const float* x, const float* w, const float* dy,
                             float* dx, float* dw) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  for (size_t c = 0; c < s.out_c; ++c) {
    const float* xc = x + c * in_plane;
    const float* dyc = dy + c * out_plane;
    float* dxc = dx + c * in_plane;
    for (size_t r = 0; r < s.kh; ++r) {
      for (size_t t = 0; t < s.kw; ++t) {
        const size_t wi = (c * s.kh + r) * s.kw + t;
        const B wv(w[wi]);
        const long off_w = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
        size_t lo = 0, hi = 0;
        ref::ValidColumns(s, off_w, &lo, &hi);
        B acc(0.0f);
        float acc_tail = 0.0f;
        for (size_t oh = 0; oh < s.out_h && lo < hi; ++oh) {
          const long ih =
              static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= static_cast<long>(s.in_h)) continue;
          const float* g = dyc + oh * s.out_w + lo;
          // Input index of column lo: inside the row, so the pointers below stay in bounds.
          const size_t first = static_cast<size_t>(ih * static_cast<long>(s.in_w) + off_w +
                                                   static_cast<long>(lo * s.stride_w));
          float* d = dxc + first;
          const float* xi = xc + first;
          const size_t n = hi - lo;
          size_t i = 0;
          if (s.stride_w == 1) {
            for (; i + W <= n; i += W) {
              const B gv = B::load_unaligned(g + i);
              xsimd::fma(wv, gv, B::load_unaligned(d + i)).store_unaligned(d + i);
              if (dw != nullptr) acc = xsimd::fma(B::load_unaligned(xi + i), gv, acc);
            }
          }
          for (; i < n; ++i) {
            d[i * s.stride_w] += w[wi] * g[i];
            if (dw != nullptr) acc_tail += xi[i * s.stride_w] * g[i];
          }
        }
        if (dw != nullptr) dw[wi] += xsimd::hadd(acc) + acc_tail;
      }
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
