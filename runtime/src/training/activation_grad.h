// Derivatives of the activations, from the output y (fused epilogues keep only y) or from the
// input x (stand-alone Activation ops).
#pragma once
#include <cmath>

#include "kernels/kernel_params.h"

namespace edgefold::internal {

// False for activations whose derivative is not a function of y (HardSwish, SiLU: not monotone,
// two x share one y).
inline bool GradFromOutputSupported(kernels::ActKind k) {
  return k != kernels::ActKind::kHardSwish && k != kernels::ActKind::kSiLU;
}

// d act / dx expressed through y = act(x).
inline float ActGradFromOutput(const kernels::Activation& a, float y) {
  switch (a.kind) {
    case kernels::ActKind::kRelu: return y > 0.0f ? 1.0f : 0.0f;
    case kernels::ActKind::kClip: return (y > a.alpha && y < a.beta) ? 1.0f : 0.0f;
    case kernels::ActKind::kLeakyRelu: return y > 0.0f ? 1.0f : a.alpha;
    case kernels::ActKind::kSigmoid: return y * (1.0f - y);
    case kernels::ActKind::kHardSigmoid: return (y > 0.0f && y < 1.0f) ? a.alpha : 0.0f;
    default: return 1.0f;
  }
}

// d act / dx at x (PyTorch's conventions at the kinks).
inline float ActGradFromInput(const kernels::Activation& a, float x) {
  switch (a.kind) {
    case kernels::ActKind::kRelu: return x > 0.0f ? 1.0f : 0.0f;
    case kernels::ActKind::kClip: return (x > a.alpha && x < a.beta) ? 1.0f : 0.0f;
    case kernels::ActKind::kLeakyRelu: return x > 0.0f ? 1.0f : a.alpha;
    case kernels::ActKind::kSigmoid: {
      const float y = 1.0f / (1.0f + std::exp(-x));
      return y * (1.0f - y);
    }
    case kernels::ActKind::kHardSigmoid: {
      const float v = a.alpha * x + a.beta;
      return (v > 0.0f && v < 1.0f) ? a.alpha : 0.0f;
    }
    case kernels::ActKind::kHardSwish:
      return x < -3.0f ? 0.0f : x <= 3.0f ? x / 3.0f + 0.5f : 1.0f;
    case kernels::ActKind::kSiLU: {  // d/dx x·s(x) = s(x)·(1 + x·(1 − s(x)))
      const float s = 1.0f / (1.0f + std::exp(-x));
      return s * (1.0f + x * (1.0f - s));
    }
    default: return 1.0f;
  }
}

}  // namespace edgefold::internal
