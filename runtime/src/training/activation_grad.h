// Derivatives of the activations, from the output y (fused epilogues keep only y) or from the
// input x (stand-alone Activation ops).
#pragma once
#include <cmath>

#include "kernels/kernel_params.h"

namespace edgefold::internal {

// False for activations whose derivative is not a function of y (HardSwish, SiLU, Gelu, Abs,
// Square: not monotone, two x share one y; Erf, Pow: no cheap inverse).
inline bool GradFromOutputSupported(kernels::ActKind k) {
  using kernels::ActKind;
  switch (k) {
    case ActKind::kNone:
    case ActKind::kRelu:
    case ActKind::kClip:
    case ActKind::kLeakyRelu:
    case ActKind::kSigmoid:
    case ActKind::kHardSigmoid:
    case ActKind::kTanh:
    case ActKind::kExp:
    case ActKind::kLog:
    case ActKind::kSqrt:
    case ActKind::kReciprocal:
    case ActKind::kNeg:
      return true;
    default:
      return false;
  }
}

// d act / dx expressed through y = act(x).
inline float ActGradFromOutput(const kernels::Activation& a, float y) {
  switch (a.kind) {
    case kernels::ActKind::kRelu:
      return y > 0.0f ? 1.0f : 0.0f;
    case kernels::ActKind::kClip:
      return (y > a.alpha && y < a.beta) ? 1.0f : 0.0f;
    case kernels::ActKind::kLeakyRelu:
      return y > 0.0f ? 1.0f : a.alpha;
    case kernels::ActKind::kSigmoid:
      return y * (1.0f - y);
    case kernels::ActKind::kHardSigmoid:
      return (y > 0.0f && y < 1.0f) ? a.alpha : 0.0f;
    case kernels::ActKind::kTanh:
      return 1.0f - y * y;
    case kernels::ActKind::kExp:
      return y;
    case kernels::ActKind::kLog:
      return std::exp(-y);  // 1/x with x = e^y
    case kernels::ActKind::kSqrt:
      return 0.5f / y;
    case kernels::ActKind::kReciprocal:
      return -y * y;  // −1/x²
    case kernels::ActKind::kNeg:
      return -1.0f;
    default:
      return 1.0f;
  }
}

// d act / dx at x (PyTorch's conventions at the kinks).
inline float ActGradFromInput(const kernels::Activation& a, float x) {
  switch (a.kind) {
    case kernels::ActKind::kRelu:
      return x > 0.0f ? 1.0f : 0.0f;
    case kernels::ActKind::kClip:
      return (x > a.alpha && x < a.beta) ? 1.0f : 0.0f;
    case kernels::ActKind::kLeakyRelu:
      return x > 0.0f ? 1.0f : a.alpha;
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
    case kernels::ActKind::kTanh: {
      const float t = std::tanh(x);
      return 1.0f - t * t;
    }
    case kernels::ActKind::kExp:
      return std::exp(x);
    case kernels::ActKind::kLog:
      return 1.0f / x;
    case kernels::ActKind::kSqrt:
      return 0.5f / std::sqrt(x);
    case kernels::ActKind::kReciprocal:
      return -1.0f / (x * x);
    case kernels::ActKind::kNeg:
      return -1.0f;
    case kernels::ActKind::kAbs:
      return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f;  // sign(x), as PyTorch
    case kernels::ActKind::kErf:
      return 1.12837916709551257f * std::exp(-x * x);  // 2/√π·e^{−x²}
    case kernels::ActKind::kGelu: {                    // Φ(x) + x·φ(x)
      const float cdf = 0.5f * (1.0f + std::erf(x * 0.70710678118654752f));
      return cdf + x * 0.39894228040143268f * std::exp(-0.5f * x * x);
    }
    case kernels::ActKind::kSquare:
      return 2.0f * x;
    case kernels::ActKind::kPow:
      return a.alpha * std::pow(x, a.alpha - 1.0f);
    default:
      return 1.0f;
  }
}

// Whether z1 and z2 lie on the same piece of the activation (the same side of each point where
// its gradient jumps: a ReLU's 0, a Clip's bounds, HardSwish's ±3, …). Smooth activations have
// one piece.
inline bool SameActivationPiece(const kernels::Activation& a, float z1, float z2) {
  switch (a.kind) {
    case kernels::ActKind::kRelu:
    case kernels::ActKind::kLeakyRelu:
      return (z1 > 0.0f) == (z2 > 0.0f);
    case kernels::ActKind::kClip:
      return (z1 > a.alpha) == (z2 > a.alpha) && (z1 < a.beta) == (z2 < a.beta);
    case kernels::ActKind::kHardSigmoid: {
      const float v1 = a.alpha * z1 + a.beta, v2 = a.alpha * z2 + a.beta;
      return (v1 > 0.0f) == (v2 > 0.0f) && (v1 < 1.0f) == (v2 < 1.0f);
    }
    case kernels::ActKind::kHardSwish:
      return (z1 < -3.0f) == (z2 < -3.0f) && (z1 <= 3.0f) == (z2 <= 3.0f);
    default:
      return true;
  }
}

}  // namespace edgefold::internal
