// 2-D max / average pooling, vectorized over output columns where stride_w == 1 and the
// whole horizontal window is inside the row; every other pixel takes the scalar path.
#pragma once
#include "kernels/simd/window_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// max or Σ/count over the in-bounds taps of one window; 0 when none is in bounds.
inline float PoolPixel(const Pool2dParams& p, const float* xp, size_t oh, size_t ow) {
  const bool is_max = p.kind == PoolKind::kMax;
  float acc = is_max ? -INFINITY : 0.0f;
  size_t count = 0;
  for (size_t r = 0; r < p.kh; ++r) {
    const long ih = TapRow(oh, r, p.stride_h, p.dilation_h, p.pad_top, p.in_h);
    if (ih < 0) continue;
    for (size_t t = 0; t < p.kw; ++t) {
      const long iw = static_cast<long>(ow * p.stride_w + t * p.dilation_w) - static_cast<long>(p.pad_left);
      if (iw < 0 || iw >= static_cast<long>(p.in_w)) continue;
      const float v = xp[ih * static_cast<long>(p.in_w) + iw];
      acc = is_max ? std::max(acc, v) : acc + v;
      ++count;
    }
  }
  if (count == 0) return 0.0f;
  if (is_max) return acc;
  return acc / static_cast<float>(p.count_include_pad ? p.kh * p.kw : count);
}

// Output columns [ow, hi) of row oh in steps of W; returns the first column not written.
template <class Arch>
size_t PoolRowInterior(const Pool2dParams& p, const float* xp, size_t oh, size_t ow, size_t hi,
                       float* y_row) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  size_t rows = 0;  // in-bounds window rows of this output row
  for (size_t r = 0; r < p.kh; ++r) rows += TapRow(oh, r, p.stride_h, p.dilation_h, p.pad_top, p.in_h) >= 0;
  if (rows == 0) return ow;
  const bool is_max = p.kind == PoolKind::kMax;
  const B inv(1.0f / static_cast<float>(p.count_include_pad ? p.kh * p.kw : rows * p.kw));
  for (; ow + W <= hi; ow += W) {
    B acc(is_max ? -INFINITY : 0.0f);
    for (size_t r = 0; r < p.kh; ++r) {
      const long ih = TapRow(oh, r, p.stride_h, p.dilation_h, p.pad_top, p.in_h);
      if (ih < 0) continue;
      const float* xr = xp + static_cast<size_t>(ih) * p.in_w + ow - p.pad_left;
      for (size_t t = 0; t < p.kw; ++t) {
        const B v = B::load_unaligned(xr + t * p.dilation_w);
        acc = is_max ? xsimd::max(acc, v) : acc + v;
      }
    }
    (is_max ? acc : acc * inv).store_unaligned(y_row + ow);
  }
  return ow;
}

template <class Arch>
void Pool2d(const Pool2dParams& p, const float* x, float* y, size_t planes) {
  const ColSpan span = p.stride_w == 1 ? InteriorCols(p.in_w, p.out_w, p.kw, p.dilation_w, p.pad_left)
                                       : ColSpan{p.out_w, p.out_w};
  for (size_t pl = 0; pl < planes; ++pl) {
    const float* xp = x + pl * p.in_h * p.in_w;
    for (size_t oh = 0; oh < p.out_h; ++oh) {
      float* y_row = y + (pl * p.out_h + oh) * p.out_w;
      size_t ow = 0;
      for (; ow < span.lo; ++ow) y_row[ow] = PoolPixel(p, xp, oh, ow);
      ow = PoolRowInterior<Arch>(p, xp, oh, ow, span.hi, y_row);
      for (; ow < p.out_w; ++ow) y_row[ow] = PoolPixel(p, xp, oh, ow);
    }
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
