// Sliding-window helpers shared by the depthwise-conv and pool2d templates.
#pragma once
#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Output columns [lo, hi) whose whole horizontal window is inside the row when stride_w == 1:
// ow − pl ≥ 0 and ow − pl + (kw−1)·dw ≤ in_w − 1, i.e. pl ≤ ow < in_w + pl − (kw−1)·dw.
struct ColSpan {
  size_t lo, hi;
};
inline ColSpan InteriorCols(size_t in_w, size_t out_w, size_t kw, size_t dw, size_t pl) {
  const size_t lo = std::min(pl, out_w);
  const size_t reach = (kw - 1) * dw;
  size_t hi = in_w + pl > reach ? in_w + pl - reach : 0;
  hi = std::max(std::min(hi, out_w), lo);
  return {lo, hi};
}

// Input row of tap r for output row oh, or −1 when it falls in the padding.
inline long TapRow(size_t oh, size_t r, size_t stride_h, size_t dilation_h, size_t pad_top, size_t in_h) {
  const long ih = static_cast<long>(oh * stride_h + r * dilation_h) - static_cast<long>(pad_top);
  return ih < static_cast<long>(in_h) ? ih : -1;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
