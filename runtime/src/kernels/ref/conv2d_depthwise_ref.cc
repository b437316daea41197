#include "kernels/act_scalar.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// y[c,oh,ow] = act( bias[c] + Σ_{r<kh} Σ_{t<kw} w[c,r,t] · x[c, oh·sh − pt + r·dh, ow·sw − pl + t·dw] )
// with taps outside the image skipped (zero padding); bias = 0 when nullptr.
void Conv2dDepthwise(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                     Activation act, float* y) {
  const long in_h = static_cast<long>(s.in_h), in_w = static_cast<long>(s.in_w);
  for (size_t c = 0; c < s.out_c; ++c) {
    const float* x_c = x + c * ConvXPlane(s);
    const float* w_c = w + c * s.kh * s.kw;
    for (size_t oh = 0; oh < s.out_h; ++oh) {
      for (size_t ow = 0; ow < s.out_w; ++ow) {
        float acc = bias != nullptr ? bias[c] : 0.0f;
        for (size_t r = 0; r < s.kh; ++r) {
          const long ih =
              static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= in_h) continue;
          for (size_t t = 0; t < s.kw; ++t) {
            const long iw = static_cast<long>(ow * s.stride_w + t * s.dilation_w) -
                            static_cast<long>(s.pad_left);
            if (iw < 0 || iw >= in_w) continue;
            acc += w_c[r * s.kw + t] * x_c[ih * in_w + iw];
          }
        }
        y[c * ConvYPlane(s) + oh * s.out_w + ow] = ApplyActivation(acc, act);
      }
    }
  }
}

// The same sums with channels innermost (DepthwiseHwcParams): x [in_h][in_w][in_c],
// y [out_h][out_w][out_c], wᵀ [kh][kw][c], channels [c_begin, c_end).
void Conv2dDepthwiseHwc(const DepthwiseHwcParams& p, const float* x, const float* w, float* y) {
  const Conv2dShape& s = p.s;
  const long in_h = static_cast<long>(s.in_h), in_w = static_cast<long>(s.in_w);
  for (size_t oh = 0; oh < s.out_h; ++oh)
    for (size_t ow = 0; ow < s.out_w; ++ow)
      for (size_t c = p.c_begin; c < p.c_end; ++c) {
        float acc = p.bias != nullptr ? p.bias[c] : 0.0f;
        for (size_t r = 0; r < s.kh; ++r) {
          const long ih =
              static_cast<long>(oh * s.stride_h + r * s.dilation_h) - static_cast<long>(s.pad_top);
          if (ih < 0 || ih >= in_h) continue;
          for (size_t t = 0; t < s.kw; ++t) {
            const long iw = static_cast<long>(ow * s.stride_w + t * s.dilation_w) -
                            static_cast<long>(s.pad_left);
            if (iw < 0 || iw >= in_w) continue;
            acc += w[(r * s.kw + t) * s.out_c + c] *
                   x[(ih * in_w + iw) * static_cast<long>(s.in_c) + static_cast<long>(c)];
          }
        }
        y[(oh * s.out_w + ow) * s.out_c + c] = ApplyActivation(acc, p.act);
      }
}

}  // namespace edgefold::kernels::ref
