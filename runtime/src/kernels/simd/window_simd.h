// Sliding-window helpers shared by the depthwise-conv and pool2d templates.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// A half-open range [lo, hi) of output columns or window rows.
struct Span {
  size_t lo, hi;
};

// Output columns whose whole horizontal window is inside the row:
// ow·sw − pl ≥ 0 and ow·sw − pl + (kw−1)·dw ≤ in_w − 1.
inline Span InteriorCols(size_t in_w, size_t out_w, size_t kw, size_t sw, size_t dw, size_t pl) {
  const size_t lo = std::min((pl + sw - 1) / sw, out_w);
  const size_t reach = (kw - 1) * dw;
  size_t hi = in_w + pl > reach ? (in_w - 1 + pl - reach) / sw + 1 : 0;
  hi = std::max(std::min(hi, out_w), lo);
  return {lo, hi};
}

// Window rows r (contiguous) with 0 ≤ oh·sh − pt + r·dh < in_h.
inline Span ValidTaps(size_t oh, size_t k, size_t stride, size_t dilation, size_t pad,
                      size_t in_len) {
  const long base = static_cast<long>(oh * stride) - static_cast<long>(pad);
  const long d = static_cast<long>(dilation);
  size_t lo = 0;
  while (lo < k && base + static_cast<long>(lo) * d < 0) ++lo;
  size_t hi = lo;
  while (hi < k && base + static_cast<long>(hi) * d < static_cast<long>(in_len)) ++hi;
  return {lo, hi};
}

// Input row of tap r for output row oh, or −1 when it falls in the padding.
inline long TapRow(size_t oh, size_t r, size_t stride_h, size_t dilation_h, size_t pad_top,
                   size_t in_h) {
  const long ih = static_cast<long>(oh * stride_h + r * dilation_h) - static_cast<long>(pad_top);
  return ih < static_cast<long>(in_h) ? ih : -1;
}

// Loads W adjacent input columns (stride_w == 1).
template <class Arch>
struct UnitLoader {
  FBatch<Arch> operator()(const float* p) const { return FBatch<Arch>::load_unaligned(p); }
};

// Loads W input columns p[0], p[s], p[2s], … with a gather (stride_w > 1).
template <class Arch>
class StridedLoader {
 public:
  using I = xsimd::batch<int32_t, Arch>;
  explicit StridedLoader(size_t stride) {
    alignas(64) int32_t lanes[I::size];
    for (size_t i = 0; i < I::size; ++i) lanes[i] = static_cast<int32_t>(i * stride);
    index_ = I::load_aligned(lanes);
  }
  FBatch<Arch> operator()(const float* p) const { return FBatch<Arch>::gather(p, index_); }

 private:
  I index_;
};

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
