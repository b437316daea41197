// The int8 scheme's arithmetic on the compiler side (docs/quantization.md): activation scale
// and zero point from a range, per-channel symmetric weights, and the fixed-point multiplier
// the runtime's RequantizeS8 applies.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/requant_multiplier.h"

namespace edgefold::compiler::quant {

struct ActQuant {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// The quantization a QDQ model gives one node's weights, per output channel (a per-tensor
// scale repeated): the scale and max |q − zp| over the channel, from which the int8 rewrite
// recovers the model's int8 values, also after a BatchNorm folded into the weights.
struct ModelWeightScales {
  std::vector<float> scale;
  std::vector<int32_t> max_abs_q;
};

// Asymmetric int8 over [lo, hi] widened to hold 0 (zero padding and Relu's 0 stay exact):
// scale = (hi − lo)/255, zp = round(−128 − lo/scale).
inline ActQuant ChooseActQuant(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (hi - lo < 1e-8) hi = lo + 1e-8;
  ActQuant q;
  q.scale = static_cast<float>((hi - lo) / 255.0);
  const double zp = std::round(-128.0 - lo / static_cast<double>(q.scale));
  q.zero_point = static_cast<int32_t>(std::min(127.0, std::max(-128.0, zp)));
  return q;
}

// QuantizeMultiplier(real, &M, &shift): kernels/requant_multiplier.h (the runtime's int8
// statistics adaptation computes multipliers too: one copy).
using kernels::QuantizeMultiplier;

// The int8 value of real v under (scale, zp), saturated.
inline int32_t QuantizeValue(double v, const ActQuant& q) {
  const double r = std::round(v / q.scale) + q.zero_point;
  return static_cast<int32_t>(std::min(127.0, std::max(-128.0, r)));
}

}  // namespace edgefold::compiler::quant
