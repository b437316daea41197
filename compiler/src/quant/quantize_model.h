// The rewrite of a folded float model into int8 (docs/quantization.md): ops with an int8
// kernel become int8, the others stay float with Quantize/Dequantize around them, graph
// inputs and outputs stay float.
#pragma once
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

// `ranges` from ObserveRanges on `float_model`.
Int8Model QuantizeModel(const LoweredModel& float_model, const std::vector<Range>& ranges);

}  // namespace edgefold::compiler::quant
