// LayerNorm over the rows of x (kernel_table.h): two passes in double, so the reference is the
// oracle of the SIMD tables.
#include <cmath>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {

void LayerNorm(const float* x, const float* scale, const float* bias, float eps, float* y,
               float* mean_out, float* inv_std_out, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double sum = 0.0, sq = 0.0;
    for (size_t i = 0; i < cols; ++i) sum += xr[i];
    const double mean = sum / static_cast<double>(cols);
    for (size_t i = 0; i < cols; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(cols) + eps);
    if (mean_out != nullptr) mean_out[r] = static_cast<float>(mean);
    if (inv_std_out != nullptr) inv_std_out[r] = static_cast<float>(inv);
    for (size_t i = 0; i < cols; ++i)
      y[r * cols + i] =
          static_cast<float>((xr[i] - mean) * inv * scale[i] + (bias ? bias[i] : 0.0f));
  }
}

}  // namespace edgefold::kernels::ref
