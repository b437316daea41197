#include <algorithm>
#include <cmath>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// For each (o, i): m = max_a x[o,a,i];  y[o,a,i] = e^(x[o,a,i] − m) / Σ_a' e^(x[o,a',i] − m)
void Softmax(const float* x, float* y, size_t outer, size_t axis_len, size_t inner) {
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const float* xs = x + o * axis_len * inner + i;
      float* ys = y + o * axis_len * inner + i;
      float m = -INFINITY;
      for (size_t a = 0; a < axis_len; ++a) m = std::max(m, xs[a * inner]);
      float sum = 0.0f;
      for (size_t a = 0; a < axis_len; ++a) {
        ys[a * inner] = std::exp(xs[a * inner] - m);
        sum += ys[a * inner];
      }
      for (size_t a = 0; a < axis_len; ++a) ys[a * inner] /= sum;
    }
  }
}

}  // namespace edgefold::kernels::ref
