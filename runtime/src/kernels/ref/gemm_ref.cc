#include "kernels/act_scalar.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// C[i,j] = act( (accumulate ? C[i,j] : 0) + Σ_p A[i,p]·B[p,j] + bias[i or j] )
// The sum runs p = 0..k−1 from 0 and the old C is added after it; the SIMD kernels keep
// this order so that only FMA rounding separates them.
void Gemm(const GemmParams& p, const float* a, const float* b, float* c) {
  for (size_t i = 0; i < p.m; ++i) {
    for (size_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (size_t q = 0; q < p.k; ++q) acc += a[i * p.lda + q] * GemmBRow(p, b, q)[j];
      float* out = c + i * p.ldc + j;
      if (p.accumulate) acc = *out + acc;
      if (p.bias != nullptr) acc += p.bias[p.bias_per_row ? i : j];
      *out = ApplyActivation(acc, p.act);
    }
  }
}

// y[o][oh][ow] = act(bias[o] + Σ_{c,r,t} wt[c][r][t][o]·x[c][oh·sh + r·dh][ow·sw + t·dw]), the
// sum from the bias in tap order; x and y channels innermost where x_hwc, y_hwc say so.
void ConvKm(const ConvKmParams& p, const float* wt, const float* x, float* y) {
  for (size_t o = p.o_begin; o < p.o_end; ++o)
    for (size_t oh = 0; oh < p.out_h; ++oh)
      for (size_t ow = 0; ow < p.out_w; ++ow) {
        float acc = p.bias != nullptr ? p.bias[o] : 0.0f;
        const float* w = wt + o;
        for (size_t c = 0; c < p.in_c; ++c)
          for (size_t r = 0; r < p.kh; ++r)
            for (size_t t = 0; t < p.kw; ++t, w += p.out_c) {
              const size_t pixel =
                  (oh * p.stride_h + r * p.dilation_h) * p.x_w + ow * p.stride_w + t * p.dilation_w;
              acc +=
                  *w * x[EDGEFOLD_NHWC && p.x_hwc ? pixel * p.in_c + c : c * p.x_h * p.x_w + pixel];
            }
        const size_t out_pixel = oh * p.out_w + ow;
        y[EDGEFOLD_NHWC && p.y_hwc ? out_pixel * p.out_c + o : o * p.out_h * p.out_w + out_pixel] =
            ApplyActivation(acc, p.act);
      }
}

}  // namespace edgefold::kernels::ref
