// Per-channel int8 weights of a Conv or Gemm (docs/quantization.md): by max |w| (calibrated
// models), or at a QDQ model's own scales.
#pragma once
#include <string>
#include <vector>

#include "quant/quant_math.h"

namespace edgefold::compiler::quant {

// Weights w[c][k] (channel-major, `channels` rows of `per` values) → symmetric int8 per
// channel: s_w[c] = max|w[c]|/q_max (1 for an all-zero channel), q = round(w/s_w) ∈ [−q_max, q_max].
// q_max 127 (8-bit), or 64 (--quantize-weight-bits 7): then every two weights have
// |q0| + |q1| ≤ 128, which x86 without VNNI multiplies exactly as u8·s8 pairs in int16.
std::vector<int8_t> QuantizeWeights(const std::vector<float>& w, size_t channels, size_t per,
                                    int q_max, std::vector<float>* scales);

// Weights w[c][k] at a QDQ model's scales: s_w[c] is the model's, times max|w[c]| / (max|q[c]| · s)
// where a BatchNorm folded into the weights scaled the channel (the ratio is 1 to float32
// rounding otherwise), so q = round(w / s_w[c]) gives back the model's int8 values (negated
// where the BatchNorm's scale is negative). A channel whose q − zp leaves [−128, 127]
// (asymmetric uint8 weights) is quantized by max |w| / 127. Throws CompileError naming `node`
// when `given` has another channel count.
std::vector<int8_t> WeightsAtModelScales(const std::vector<float>& w, size_t channels, size_t per,
                                         const ModelWeightScales& given, const std::string& node,
                                         std::vector<float>* scales);

}  // namespace edgefold::compiler::quant
