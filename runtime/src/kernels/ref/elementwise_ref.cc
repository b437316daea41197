#include <algorithm>
#include <cmath>

#include "kernels/act_scalar.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// y[c,i] = act(x[c,i]·scale[c] + shift[c])
void ChannelAffine(const float* x, const float* scale, const float* shift, float* y,
                   size_t channels, size_t spatial, Activation act) {
  for (size_t c = 0; c < channels; ++c) {
    for (size_t i = 0; i < spatial; ++i) {
      y[c * spatial + i] = ApplyActivation(x[c * spatial + i] * scale[c] + shift[c], act);
    }
  }
}

// scale = γ/√(σ²+ε), shift = β − μ·scale, then y = act(x·scale + shift) per channel.
void BatchnormInference(const float* x, const float* gamma, const float* beta, const float* mean,
                        const float* var, float eps, float* y, size_t channels, size_t spatial,
                        Activation act) {
  for (size_t c = 0; c < channels; ++c) {
    const float scale = gamma[c] / std::sqrt(var[c] + eps);
    const float shift = beta[c] - mean[c] * scale;
    ChannelAffine(x + c * spatial, &scale, &shift, y + c * spatial, 1, spatial, act);
  }
}

// y[i] = act(x[i]). Relu and Clip (ActOne's formulas) without a call per value: the scalar
// table's depthwise convolution (and its GEMM, for activations other than Relu) applies its
// activation through here.
void ActivationKernel(const float* x, float* y, size_t n, Activation act) {
  if (act.kind == ActKind::kRelu) {  // std::max(v, 0), std::min(std::max(v, α), β) by value
    for (size_t i = 0; i < n; ++i) {
      const float v = x[i];
      y[i] = v < 0.0f ? 0.0f : v;
    }
  } else if (act.kind == ActKind::kClip) {
    for (size_t i = 0; i < n; ++i) {
      const float v = x[i] < act.alpha ? act.alpha : x[i];
      y[i] = act.beta < v ? act.beta : v;
    }
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = ApplyActivation(x[i], act);
  }
}

// y[c,i] = x ≥ 0 ? x : s·x with s = slope[c] (or slope[0] when shared)
void Prelu(const float* x, const float* slope, float* y, size_t channels, size_t spatial,
           bool slope_per_channel) {
  for (size_t c = 0; c < channels; ++c) {
    const float s = slope[slope_per_channel ? c : 0];
    for (size_t i = 0; i < spatial; ++i) {
      const float v = x[c * spatial + i];
      y[c * spatial + i] = v >= 0.0f ? v : s * v;
    }
  }
}

// y[i] = act(a[i|0] op b[i|0]), op ∈ {+, −, ·, ÷, min, max}; min/max propagate NaN
// (a NaN operand makes a + b NaN).
void Binary(BinaryKind kind, BroadcastMode mode, const float* a, const float* b, float* y, size_t n,
            Activation act) {
  for (size_t i = 0; i < n; ++i) {
    const float va = a[mode == BroadcastMode::kScalarA ? 0 : i];
    const float vb = b[mode == BroadcastMode::kScalarB ? 0 : i];
    float r = 0.0f;
    switch (kind) {
      case BinaryKind::kAdd:
        r = va + vb;
        break;
      case BinaryKind::kSub:
        r = va - vb;
        break;
      case BinaryKind::kMul:
        r = va * vb;
        break;
      case BinaryKind::kDiv:
        r = va / vb;
        break;
      case BinaryKind::kMin:
        r = (std::isnan(va) || std::isnan(vb)) ? va + vb : std::min(va, vb);
        break;
      case BinaryKind::kMax:
        r = (std::isnan(va) || std::isnan(vb)) ? va + vb : std::max(va, vb);
        break;
    }
    y[i] = ApplyActivation(r, act);
  }
}

}  // namespace edgefold::kernels::ref
