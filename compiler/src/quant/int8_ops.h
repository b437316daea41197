// Building the int8 form of one float op of a lowered model (quantize_model.cc decides which
// ops; these functions do the arithmetic: per-channel weights, int32 biases, multipliers).
#pragma once
#include <string>

#include "lower/lowered.h"
#include "quant/quant_math.h"

namespace edgefold::compiler::quant {

// Why `op` stays float, or "" when it has an int8 form.
std::string Int8Blocker(const fb::OperatorT& op, const LoweredModel& m);

// What the report shows of one int8 layer.
struct LayerInfo {
  std::string name, type;
  int output = -1;  // the output tensor (same index in the float model)
  float in_scale = 0, out_scale = 0;
  int32_t out_zero_point = 0;
  float w_scale_min = 0, w_scale_max = 0;  // per-channel weight scales (Conv/Gemm)
  int32_t act_min = -128, act_max = 127;
};

// The op's output clamp in int8: its fused Relu/Clip (or none), under the output's quantization.
void ActivationClamp(const fb::Activation* act, const ActQuant& out, int32_t* lo, int32_t* hi);

// The output quantization every int8 Softmax has (TFLite's): scale 1/256, zero point −128.
ActQuant SoftmaxOutputQuant();

// Rewrites `op` (Conv, Gemm, Binary Add/Mul, Activation, Softmax; inputs already int8 tensors)
// into ConvInt8, GemmInt8, AddInt8, MulInt8, LutInt8 or SoftmaxInt8, appending its constants
// (int8 weights, int32 bias/multiplier/shift, lookup or exp tables) to `m`. `in` are the
// quantizations of its activation inputs, `out` of its output (for Softmax,
// SoftmaxOutputQuant()). `weights`: a QDQ model's scales of the op's weights (Conv, Gemm), or
// nullptr to quantize them by max |w|. Throws CompileError naming the node when a multiplier or
// bias leaves the representable range or `weights` does not fit the op. weight_max: the largest
// |q| of weights quantized by max |w| (127, or 64 for --quantize-weight-bits 7).
LayerInfo MakeInt8Op(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                     const ModelWeightScales* weights = nullptr, int weight_max = 127);

}  // namespace edgefold::compiler::quant
