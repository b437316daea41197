// Source coordinates of Resize (ResizeParams in kernel_params.h), shared by the reference and
// the SIMD kernels so both read the same pixels, and by ops/resize.cc to find the fast paths.
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"

namespace edgefold::kernels {

// Defined in ref/resize_ref.cc (baseline flags): not inline, so an arch TU compiled with
// AVX-512 flags can never provide the copy the reference or the ops link against.

// Nearest: clamp(round(s), 0, in − 1), round as r says.
size_t ResizeNearestIndex(const ResizeAxis& a, NearestRounding r, size_t i);

// Linear: y = x[i0]·(1 − frac) + x[i1]·frac, s clamped to [0, in − 1].
struct ResizeTap {
  size_t i0, i1;
  float frac;
};
ResizeTap ResizeLinearTap(const ResizeAxis& a, size_t i);

}  // namespace edgefold::kernels
