// Scalar activation used by the reference kernels (baseline translation units only; the
// SIMD headers carry their own copy inside the per-arch namespace, see simd/simd_ns.h).
#pragma once
#include <algorithm>
#include <cmath>

#include "kernels/kernel_params.h"

namespace edgefold::kernels {

// The formulas of kernel_params.h, one value at a time.
inline float ApplyActivation(float x, const Activation& a) {
  switch (a.kind) {
    case ActKind::kNone: return x;
    case ActKind::kRelu: return std::max(x, 0.0f);
    case ActKind::kClip: return std::min(std::max(x, a.alpha), a.beta);
    case ActKind::kLeakyRelu: return x < 0.0f ? a.alpha * x : x;
    case ActKind::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case ActKind::kHardSigmoid: return std::max(0.0f, std::min(1.0f, a.alpha * x + a.beta));
    case ActKind::kHardSwish: return x * std::max(0.0f, std::min(1.0f, x * (1.0f / 6.0f) + 0.5f));
    case ActKind::kSiLU: return x / (1.0f + std::exp(-x));
  }
  return x;
}

}  // namespace edgefold::kernels
