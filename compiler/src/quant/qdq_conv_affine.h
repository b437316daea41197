// PyTorch's QAT export of a fused Conv-BN(-ReLU) module writes the conv with weights pre-scaled
// by γ/σ, then Div by that scale, Add of the conv's bias, and the BatchNormalization:
// x → Conv(DQ(Q(w·γ/σ))) → Div → Add → BN → Relu → Q → DQ. Folding the Div and Add into the
// conv lets BatchNorm folding take the BN as for any Conv → BN, and the int8 weights come out as
// the model's (docs/quantization.md#qdq-models).
#pragma once
#include <set>
#include <string>

#include "ir/graph.h"

namespace edgefold::compiler::quant {

// Folds each Mul/Div by, and Add/Sub of, a constant that is one value per output channel
// ([1, M, 1, …] or a single value) into the Conv producing its input, when that Conv's output
// has no other reader, is not a graph output and is not in `quantized` (the model rounds it
// there). Returns the nodes removed.
int FoldConvChannelAffine(ir::Graph& graph, const std::set<std::string>& quantized);

}  // namespace edgefold::compiler::quant
