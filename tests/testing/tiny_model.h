// A small model that exercises conv (with scratch), fused relu, global pool, reshape and gemm:
//   x[1,2,5,5] → Conv(3, 3×3, pad 1) + Relu → GlobalAveragePool → Reshape[1,3] → Gemm(4) → y[1,4]
#pragma once
#include <vector>

#include "testing/efb_builder.h"

namespace edgefold::testing {

struct TinyModel {
  std::vector<float> conv_w, conv_b, fc_w, fc_b;  // conv_w [3,2,3,3], fc_w [3,4] ([K,N])
  std::vector<uint8_t> bytes;
};

TinyModel MakeTinyModel();
// Double-precision reference of the same graph.
std::vector<float> TinyModelReference(const TinyModel& m, const std::vector<float>& x);

}  // namespace edgefold::testing
