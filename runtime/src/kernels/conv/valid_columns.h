// The columns of an im2col row that read inside the image, shared by im2col and its adjoint.
#pragma once
#include <algorithm>
#include <cstddef>

#include "kernels/kernel_params.h"

namespace edgefold::kernels::ref {

// Outputs [lo, hi) of one row whose input column ow·sw + off_w lies inside [0, in_w).
inline void ValidColumns(const Conv2dShape& s, long off_w, size_t* lo, size_t* hi) {
  const long sw = static_cast<long>(s.stride_w), in_w = static_cast<long>(s.in_w);
  const long first = off_w >= 0 ? 0 : (-off_w + sw - 1) / sw;
  const long end = in_w - 1 - off_w >= 0 ? (in_w - 1 - off_w) / sw + 1 : 0;
  *lo = std::min(static_cast<size_t>(first), s.out_w);
  *hi = std::max(*lo, std::min(static_cast<size_t>(end), s.out_w));
}

}  // namespace edgefold::kernels::ref
