// Import of an ONNX QDQ model (QuantizeLinear/DequantizeLinear around float ops, as ONNX
// Runtime's and PyTorch's quantization tools export): the Q/DQ nodes are removed from the IR
// and their scales and zero points kept aside, so the float passes (BN folding, fusion) run
// unchanged and the int8 rewrite uses the model's own quantization (docs/quantization.md).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "quant/quant_math.h"

namespace edgefold::compiler::quant {

struct QdqModel {
  bool found = false;                           // the graph had QuantizeLinear/DequantizeLinear
  std::map<std::string, ActQuant> activations;  // float tensor → its quantization (int8 zero point)
  std::map<std::string, ModelWeightScales> weights;  // Conv/Gemm/MatMul node name → its weights'

  // The activations the model quantizes (an op's activation does not fuse across them).
  std::set<std::string> QuantizedTensors() const {
    std::set<std::string> names;
    for (const auto& kv : activations) names.insert(kv.first);
    return names;
  }
};

// Rewrites a QDQ graph into its float form: DequantizeLinear (and QuantizeLinear) of constants
// become float constants, each activation's QuantizeLinear → DequantizeLinear pair is removed
// and its quantization recorded on the float tensor (uint8 with zero point z maps to int8 with
// z − 128). A graph without either op is left as is (found = false). Throws CompileError naming
// the node for a scale ≤ 0 or not finite, a zero point outside its type, scales or zero points
// that do not match the quantized axis, a non-constant scale, a DequantizeLinear whose
// quantization differs from its QuantizeLinear's, and int8 graph inputs or outputs.
QdqModel ImportQdq(ir::Graph& graph);

}  // namespace edgefold::compiler::quant
