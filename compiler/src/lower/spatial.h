// Window geometry shared by Conv and pooling: attributes → explicit 2-D values, with 1-D
// windows stored as height 1 (kernel [1,kw], strides [1,sw], pads [0,l,0,r]).
#pragma once
#include <vector>

#include "ir/graph.h"

namespace edgefold::compiler {

struct Window2d {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t top = 0, left = 0, bottom = 0, right = 0;
};

// `x` is [N,C,W] or [N,C,H,W]; `kernel` the spatial kernel dims (1 or 2 values).
// Resolves auto_pad (SAME_UPPER/SAME_LOWER/VALID) to explicit pads; checks that the output
// shape ONNX inferred, `y`, matches (with ceil_mode when `ceil_mode`). Throws naming the node.
Window2d ResolveWindow(const ir::Node& node, const std::vector<int64_t>& x,
                       const std::vector<int64_t>& kernel, const std::vector<int64_t>& y,
                       bool ceil_mode);

}  // namespace edgefold::compiler
