// The BatchNorm adaptation records of an int8 model (schema Operator.bn_adapt, written by
// `compile --quantize int8 --adaptable`) as plain views for the statistics adaptation
// (adaptation/int8_adapter.cc), so that nothing outside model/ reads the FlatBuffer.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgefold::internal {

// One op's folded BatchNorm: |γ|, β and ε·k² per output channel, read in place from the model
// buffer (valid as long as it is). A field the record lacks is nullptr with count 0.
struct BnAdaptationView {
  const float* gamma_abs = nullptr;
  uint32_t gamma_abs_count = 0;
  const float* beta = nullptr;
  uint32_t beta_count = 0;
  const float* eps_k2 = nullptr;
  uint32_t eps_k2_count = 0;
};

// Op `op_index`'s record of a model CheckModel accepted; false (and *out untouched) when the
// op has none. `op_index` must be below ModelSummary::num_ops.
bool ReadBnAdaptation(const uint8_t* model, size_t op_index, BnAdaptationView* out);

}  // namespace edgefold::internal
