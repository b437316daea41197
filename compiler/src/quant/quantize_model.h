// The rewrite of a folded float model into int8 (docs/quantization.md): ops with an int8
// kernel become int8, the others stay float with Quantize/Dequantize around them, graph
// inputs and outputs stay float.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "quant/int8_ops.h"
#include "quant/ranges.h"

namespace edgefold::compiler::quant {

struct FloatOp {
  std::string name, type, reason;
};

struct Int8Model {
  LoweredModel model;              // unplanned; tensor indices of the float model are kept
  std::vector<LayerInfo> layers;   // int8 ops, in order (Conv/Gemm/Add/pools/reshapes)
  std::vector<FloatOp> float_ops;  // ops kept in float, with the reason
  std::vector<int> boundaries;     // Quantize/Dequantize ops inserted
};

// The quantization each activation of the float model gets: from calibrated ranges, or a QDQ
// model's own (quant/qdq_import.h), where a tensor the model does not quantize is not `known`.
struct TensorQuants {
  std::vector<ActQuant> act;  // per tensor of the float model
  std::vector<bool> known;    // act[t] is set
  bool from_model =
      false;  // a QDQ model's: Softmax only where the model quantizes its output as int8 Softmax does
  std::map<std::string, ModelWeightScales> weights;  // op name → the model's weight scales
  int weight_max = 127;  // the largest |q| of weights quantized by max |w| (weights_int8.h)
};

// `ranges` from ObserveRanges on `float_model`.
// weight_max: QuantizeWeights' q_max.
Int8Model QuantizeModel(const LoweredModel& float_model, const std::vector<Range>& ranges,
                        int weight_max = 127);

// The rewrite with given quantizations: an op whose output (or an activation input) has none
// stays float, with the reason.
Int8Model QuantizeModel(const LoweredModel& float_model, const TensorQuants& quants);

}  // namespace edgefold::compiler::quant
