// LayerNorm over the rows of x[rows × cols]: y = (x − mean)/√(var + eps)·scale + bias, mean and
// (biased) variance per row, two passes (the second centred, so the variance does not cancel).
#pragma once
#include <cmath>

#include "kernels/simd/simd_common.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

template <class Arch>
void LayerNorm(const float* x, const float* scale, const float* bias, float eps, float* y,
               float* mean_out, float* inv_std_out, size_t rows, size_t cols) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const float mean = RowSum<Arch>(xr, cols) / static_cast<float>(cols);
    const B vm(mean);
    B q0(0.0f), q1(0.0f);
    size_t i = 0;
    for (; i + 2 * W <= cols; i += 2 * W) {
      const B a = B::load_unaligned(xr + i) - vm, b = B::load_unaligned(xr + i + W) - vm;
      q0 = xsimd::fma(a, a, q0);
      q1 = xsimd::fma(b, b, q1);
    }
    float sq = xsimd::hadd(q0 + q1);
    for (; i < cols; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
    const float inv = 1.0f / std::sqrt(sq / static_cast<float>(cols) + eps);
    if (mean_out != nullptr) mean_out[r] = mean;
    if (inv_std_out != nullptr) inv_std_out[r] = inv;
    const B vi(inv);
    i = 0;
    for (; i + W <= cols; i += W) {
      const B h = (B::load_unaligned(xr + i) - vm) * vi;
      const B b = bias ? B::load_unaligned(bias + i) : B(0.0f);
      xsimd::fma(h, B::load_unaligned(scale + i), b).store_unaligned(yr + i);
    }
    for (; i < cols; ++i) yr[i] = (xr[i] - mean) * inv * scale[i] + (bias ? bias[i] : 0.0f);
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
