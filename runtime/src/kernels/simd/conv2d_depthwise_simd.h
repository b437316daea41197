// Depthwise 2-D convolution, vectorized over output columns where stride_w == 1 and the
// whole horizontal window is inside the row; every other pixel takes the scalar path.
#pragma once
#include "kernels/simd/window_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// bias + Σ_{r,t} w[r,t]·x[oh·sh − pt + r·dh, ow·sw − pl + t·dw], taps outside skipped.
inline float DwPixel(const Conv2dShape& s, const float* x_c, const float* w_c, float bias, size_t oh,
                     size_t ow) {
  float acc = bias;
  for (size_t r = 0; r < s.kh; ++r) {
    const long ih = TapRow(oh, r, s.stride_h, s.dilation_h, s.pad_top, s.in_h);
    if (ih < 0) continue;
    for (size_t t = 0; t < s.kw; ++t) {
      const long iw = static_cast<long>(ow * s.stride_w + t * s.dilation_w) - static_cast<long>(s.pad_left);
      if (iw < 0 || iw >= static_cast<long>(s.in_w)) continue;
      acc += w_c[r * s.kw + t] * x_c[ih * static_cast<long>(s.in_w) + iw];
    }
  }
  return acc;
}

// Output columns [ow, hi) of row oh in steps of W (stride_w == 1, inside the row);
// returns the first column not written.
template <class Arch>
size_t DwRowInterior(const Conv2dShape& s, const float* x_c, const float* w_c, float bias, size_t oh,
                     size_t ow, size_t hi, const Activation& act, float* y_row) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  for (; ow + W <= hi; ow += W) {
    B acc(bias);
    for (size_t r = 0; r < s.kh; ++r) {
      const long ih = TapRow(oh, r, s.stride_h, s.dilation_h, s.pad_top, s.in_h);
      if (ih < 0) continue;
      const float* xr = x_c + static_cast<size_t>(ih) * s.in_w + ow - s.pad_left;
      for (size_t t = 0; t < s.kw; ++t) {
        acc = xsimd::fma(B(w_c[r * s.kw + t]), B::load_unaligned(xr + t * s.dilation_w), acc);
      }
    }
    ActBatch<Arch>(acc, act).store_unaligned(y_row + ow);
  }
  return ow;
}

// y = act(conv(x, w) + bias) for one image, group == in_c == out_c.
template <class Arch>
void Conv2dDepthwise(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                     Activation act, float* y) {
  const ColSpan span = s.stride_w == 1 ? InteriorCols(s.in_w, s.out_w, s.kw, s.dilation_w, s.pad_left)
                                       : ColSpan{s.out_w, s.out_w};
  for (size_t c = 0; c < s.out_c; ++c) {
    const float* x_c = x + c * s.in_h * s.in_w;
    const float* w_c = w + c * s.kh * s.kw;
    const float b = bias != nullptr ? bias[c] : 0.0f;
    for (size_t oh = 0; oh < s.out_h; ++oh) {
      float* y_row = y + (c * s.out_h + oh) * s.out_w;
      size_t ow = 0;
      for (; ow < span.lo; ++ow) y_row[ow] = ActOne(DwPixel(s, x_c, w_c, b, oh, ow), act);
      ow = DwRowInterior<Arch>(s, x_c, w_c, b, oh, ow, span.hi, act, y_row);
      for (; ow < s.out_w; ++ow) y_row[ow] = ActOne(DwPixel(s, x_c, w_c, b, oh, ow), act);
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
