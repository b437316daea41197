// IR → schema operators. Every op the schema supports is lowered here; anything else is an
// error "node 'X' (op 'LSTM'): unsupported op".
#pragma once
#include "ir/graph.h"
#include "lower/lowered.h"

namespace edgefold::compiler {

LoweredModel Lower(const ir::Graph& graph);

}  // namespace edgefold::compiler
