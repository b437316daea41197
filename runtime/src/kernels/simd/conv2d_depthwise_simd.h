// Depthwise 2-D convolution. With AVX-512, 3×3 stride-1 same-size planes with rows of 2 to 15
// floats go through conv2d_depthwise_narrow_simd.h (the plane read as one flat vector from x;
// 7², 8², 25 × 5 faster than the blocked path, bench/README.md). Other outputs up to 16 × 16 go
// one register's channels at a time (16 with AVX-512, 8 with AVX2, 4 on NEON) through
// conv2d_depthwise_blocked_simd.h. Strides 1 and 2
// with pitch-compatible padding go through conv2d_depthwise_flat_simd.h (outputs computed
// straight into y); other channels whose padded plane fits the stack budget go through
// conv2d_depthwise_phase_simd.h (all outputs in registers, copied out); larger planes are
// vectorized over output columns whose whole window is inside the row (plain loads for
// stride_w == 1, gathers otherwise) and their border pixels take the scalar path.
#pragma once
#include "kernels/simd/conv2d_depthwise_blocked_simd.h"
#include "kernels/simd/conv2d_depthwise_flat_simd.h"
#include "kernels/simd/conv2d_depthwise_narrow_simd.h"
#include "kernels/simd/conv2d_depthwise_phase_simd.h"
#include "kernels/simd/window_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// bias + Σ_{r,t} w[r,t]·x[oh·sh − pt + r·dh, ow·sw − pl + t·dw], taps outside skipped.
inline float DwPixel(const Conv2dShape& s, const float* x_c, const float* w_c, float bias,
                     size_t oh, size_t ow) {
  float acc = bias;
  for (size_t r = 0; r < s.kh; ++r) {
    const long ih = TapRow(oh, r, s.stride_h, s.dilation_h, s.pad_top, s.in_h);
    if (ih < 0) continue;
    for (size_t t = 0; t < s.kw; ++t) {
      const long iw =
          static_cast<long>(ow * s.stride_w + t * s.dilation_w) - static_cast<long>(s.pad_left);
      if (iw < 0 || iw >= static_cast<long>(s.in_w)) continue;
      acc += w_c[r * s.kw + t] * x_c[ih * static_cast<long>(s.in_w) + iw];
    }
  }
  return acc;
}

// One register of outputs starting at column ow (window inside the row), rows `taps` only.
template <class Arch, class Load>
FBatch<Arch> DwVector(const Conv2dShape& s, const Load& load, const float* x_c, const float* w_c,
                      float bias, size_t oh, Span taps, size_t ow) {
  using B = FBatch<Arch>;
  B acc(bias);
  const float* x0 = x_c + ow * s.stride_w - s.pad_left;
  for (size_t r = taps.lo; r < taps.hi; ++r) {
    const float* xr = x0 + (oh * s.stride_h + r * s.dilation_h - s.pad_top) * s.in_w;
    const float* wr = w_c + r * s.kw;
    for (size_t t = 0; t < s.kw; ++t) acc = xsimd::fma(B(wr[t]), load(xr + t * s.dilation_w), acc);
  }
  return acc;
}

// All output rows of all channels with one column loader (unit-stride or gather).
template <class Arch, class Load>
void DwImage(const Conv2dShape& s, const Load& load, const float* x, const float* w,
             const float* bias, const Activation& act, float* y) {
  constexpr size_t W = FBatch<Arch>::size;
  const Span cols = InteriorCols(s.in_w, s.out_w, s.kw, s.stride_w, s.dilation_w, s.pad_left);
  for (size_t c = 0; c < s.out_c; ++c) {
    const float* x_c = x + c * ConvXPlane(s);
    const float* w_c = w + c * s.kh * s.kw;
    const float b = bias != nullptr ? bias[c] : 0.0f;
    for (size_t oh = 0; oh < s.out_h; ++oh) {
      float* y_row = y + c * ConvYPlane(s) + oh * s.out_w;
      const Span taps = ValidTaps(oh, s.kh, s.stride_h, s.dilation_h, s.pad_top, s.in_h);
      size_t ow = 0;
      for (; ow < cols.lo; ++ow) y_row[ow] = ActOne(DwPixel(s, x_c, w_c, b, oh, ow), act);
      if (cols.hi - cols.lo >= W) {
        for (; ow + W <= cols.hi; ow += W)
          ActBatch<Arch>(DwVector<Arch, Load>(s, load, x_c, w_c, b, oh, taps, ow), act)
              .store_unaligned(y_row + ow);
        if (ow < cols.hi) {  // last partial register: recompute the overlapping one ending at hi
          ow = cols.hi;
          ActBatch<Arch>(DwVector<Arch, Load>(s, load, x_c, w_c, b, oh, taps, ow - W), act)
              .store_unaligned(y_row + ow - W);
        }
      }
      for (; ow < s.out_w; ++ow) y_row[ow] = ActOne(DwPixel(s, x_c, w_c, b, oh, ow), act);
    }
  }
}

// y = act(conv(x, w) + bias) for one image, group == in_c == out_c.
template <class Arch>
void Conv2dDepthwise(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                     Activation act, float* y) {
  if (DwNarrowImage<Arch>(s, x, w, bias, act, y)) return;
#if defined(EDGEFOLD_DW_BLOCKED)
  if (DwBlockedImage<Arch>(s, x, w, bias, act, y)) return;
#endif
  if (DwFlatImage<Arch>(s, x, w, bias, act, y)) return;
  if (s.kh * s.kw <= 64 && DwPhaseFits(s, FBatch<Arch>::size))
    return DwPhaseImage<Arch>(s, x, w, bias, act, y);
  if (s.stride_w == 1) return DwImage<Arch>(s, UnitLoader<Arch>{}, x, w, bias, act, y);
  DwImage<Arch>(s, StridedLoader<Arch>(s.stride_w), x, w, bias, act, y);
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
