#include <algorithm>
#include <cmath>

#include "kernels/train_reference.h"

namespace edgefold::kernels::ref {

// Per row n with M = max z:  lse = M + log Σ e^(z − M),  loss_n = lse − z[label],
//   dz = (e^(z − lse) − onehot(label)) / N.   Returns (1/N) Σ loss_n.
float SoftmaxCrossEntropy(const float* logits, const int32_t* labels, float* dlogits, size_t batch,
                          size_t classes) {
  if (batch == 0 || classes == 0) return 0.0f;
  const float inv_n = 1.0f / static_cast<float>(batch);
  float loss = 0.0f;
  for (size_t n = 0; n < batch; ++n) {
    const float* z = logits + n * classes;
    float* dz = dlogits + n * classes;
    const float mx = *std::max_element(z, z + classes);
    float sum = 0.0f;
    for (size_t j = 0; j < classes; ++j) sum += std::exp(z[j] - mx);
    const float lse = mx + std::log(sum);
    const size_t label = static_cast<size_t>(labels[n]);
    loss += lse - z[label];
    for (size_t j = 0; j < classes; ++j) dz[j] = std::exp(z[j] - lse) * inv_n;
    dz[label] -= inv_n;
  }
  return loss * inv_n;
}

// g' = g + wd·p,  v = momentum·v + g',  p = p − lr·v   (PyTorch SGD, dampening 0, v₀ = 0)
void SgdMomentum(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                 float weight_decay) {
  for (size_t i = 0; i < n; ++i) {
    const float gi = g[i] + weight_decay * p[i];
    v[i] = momentum * v[i] + gi;
    p[i] -= lr * v[i];
  }
}

}  // namespace edgefold::kernels::ref
