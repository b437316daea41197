// The BatchNorm fold, in the one place the compiler and the runtime share: an inference
// BatchNorm y = γ·(x − μ)/√(σ² + ε) + β is the per-channel affine map
//   y = x·s + shift,   s = γ/√(σ² + ε),   shift = β − μ·s,
// and folded into the op that produces x (W, b per output channel):
//   W' = W·s,   b' = (b − μ)·s + β.
// Header-only, no heap, no errors: callers validate σ² + ε > 0 where they read it (the
// compiler names the node, the runtime checked the model at load). Templated over the float
// type: the compiler folds in double, the trainer's refold and the int8 adaptation in double
// from float parameters, the streaming adaptation in float.
#pragma once
#include <cmath>

namespace edgefold::internal {

template <class T>
struct BnScaleShift {
  T scale;  // s = γ/√(σ² + ε)
  T shift;  // β − μ·s
};

template <class T>
inline BnScaleShift<T> FoldBatchNorm(T gamma, T beta, T mean, T var, T eps) {
  const T scale = gamma / std::sqrt(var + eps);
  return {scale, beta - mean * scale};
}

// b' = (b − μ)·s + β for a producer with bias b (0 when it has none).
template <class T>
inline T FoldedBias(T bias, T beta, T mean, T scale) {
  return (bias - mean) * scale + beta;
}

}  // namespace edgefold::internal
