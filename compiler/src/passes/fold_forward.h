// Folding an inference BatchNorm (as y = x·scale[c] + shift[c]) forward into the Conv or FC
// that is its only consumer, where that is exact (no padding). See fold_forward.cc.
#pragma once
#include <vector>

#include "ir/graph.h"

namespace edgefold::compiler::passes {

// Folds nodes[bn_index] into its consumer and erases it; false (graph unchanged) when the
// consumer is not a constant-weight Conv without padding or a 2-D FC.
bool TryFoldForward(ir::Graph& graph, size_t bn_index, const std::vector<double>& scale,
                    const std::vector<double>& shift);

}  // namespace edgefold::compiler::passes
