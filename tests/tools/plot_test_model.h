// A hand-built .efb (FlatBuffers object API) with a known arena plan, for the dot and
// memory-plot tests:
//   x[1,16] @0 (64 B) → op0 Gemm 'fc1' → h[1,32] @128 (128 B), scratch 64 B @64
//   h → op1 Activation 'act' → a[1,32] @0 (128 B)
//   a → op2 Softmax 'prob' → y[1,32] @128 (128 B)
// arena 256 B, lower bound 256 B; W1 [16,32] is a constant.
#pragma once
#include <cstdint>
#include <vector>

namespace edgefold::tools::testing {

std::vector<uint8_t> BuildPlotTestModel();

}  // namespace edgefold::tools::testing
