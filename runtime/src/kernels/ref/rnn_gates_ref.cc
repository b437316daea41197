// The GRU and LSTM gate math of kernel_table.h, one unit at a time.
#include <cmath>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void GruGates(const float* gx, const float* gh, float* h, size_t hidden, bool linear_before_reset) {
  const size_t z = 0, r = hidden, n = 2 * hidden;
  for (size_t i = 0; i < hidden; ++i) {
    const float zi = Sigmoid(gx[z + i] + gh[z + i]);
    const float hn = linear_before_reset ? Sigmoid(gx[r + i] + gh[r + i]) * gh[n + i] : gh[n + i];
    const float cand = std::tanh(gx[n + i] + hn);
    h[i] = cand + zi * (h[i] - cand);
  }
}

void GruResetHidden(const float* gx_r, const float* gh_r, const float* h, float* rh,
                    size_t hidden) {
  for (size_t i = 0; i < hidden; ++i) rh[i] = Sigmoid(gx_r[i] + gh_r[i]) * h[i];
}

void LstmGates(const float* g, float* c, float* h, size_t hidden) {
  const float* gi = g;
  const float* go = g + hidden;
  const float* gf = g + 2 * hidden;
  const float* gc = g + 3 * hidden;
  for (size_t i = 0; i < hidden; ++i) {
    c[i] = Sigmoid(gf[i]) * c[i] + Sigmoid(gi[i]) * std::tanh(gc[i]);
    h[i] = Sigmoid(go[i]) * std::tanh(c[i]);
  }
}

}  // namespace edgefold::kernels::ref
