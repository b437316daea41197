// IR → schema operators. Every op the schema supports is lowered here; anything else is an
// error "node 'X' (op 'LSTM'): unsupported op".
#pragma once
#include "ir/graph.h"
#include "lower/lowered.h"

namespace edgefold::compiler {

// winograd: 3×3 stride-1 convs wide enough to gain store Winograd F(2×2, 3×3) filters (inference only).
LoweredModel Lower(const ir::Graph& graph, bool winograd = false);

}  // namespace edgefold::compiler
