// Which Convs store transposed weights and which of their tensors lie channels innermost (NHWC):
// decisions that need the graph around a node, shared by the Conv lowering.
#pragma once
#include <vector>

#include "ir/graph.h"
#include "kernels/kernel_params.h"
#include "lower/spatial.h"

namespace edgefold::compiler {

// The kernels' shape of a conv (x [N, C, H, W] or [N, C, L]).
kernels::Conv2dShape ConvShape(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys,
                               const Window2d& win, int64_t group);

// A group-1 conv whose weights pay stored transposed on their own (the comment at the definition).
bool TransposedPays(const kernels::Conv2dShape& s);

// NHWC input and output of Conv node n (both false for every other node).
struct ConvLayout {
  bool x_hwc = false, y_hwc = false;
};
ConvLayout ConvLayoutOf(const ir::Graph& g, const ir::Node& n);

}  // namespace edgefold::compiler
