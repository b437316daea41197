// Scalar activation used by the reference kernels (baseline translation units only; the SIMD
// headers include the same body, kernels/act_one.inc, inside their per-arch namespace).
#pragma once
#include <algorithm>
#include <cmath>

#include "kernels/kernel_params.h"

namespace edgefold::kernels {

// The formulas of kernel_params.h, one value at a time (the body SIMD tails share).
#include "kernels/act_one.inc"
inline float ApplyActivation(float x, const Activation& a) { return ActOne(x, a); }

}  // namespace edgefold::kernels
