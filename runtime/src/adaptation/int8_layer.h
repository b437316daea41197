// One adapted layer of the int8 statistics adapter (int8_adapter.cc): the model's constants it
// reads in place, its copies in the arena, and the steps that check, measure and refold it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/int8_adapter.h"
#include "base/size_math.h"
#include "model/bn_adaptation_reader.h"
#include "ops/op_kernel.h"

namespace edgefold::internal {

// An adapted bias must leave the int32 accumulator room for the products (the compiler's bound).
constexpr double kMaxBias = 1073741824.0;  // 2^30

struct Layer {
  int32_t op = -1;
  const char* name = "";
  size_t channels = 0;
  // From the model (read in place).
  const float* gamma_abs = nullptr;
  const float* beta = nullptr;
  const float* model_eps_k2 = nullptr;
  const int32_t* model_bias = nullptr;
  const int32_t* model_multiplier = nullptr;
  const int32_t* model_shift = nullptr;
  int32_t bias_tensor = -1, multiplier_tensor = -1, shift_tensor = -1;
  const float* w_scales = nullptr;
  bool per_channel = false;
  float x_scale = 0, y_scale = 0;
  // In the arena.
  int32_t* bias = nullptr;
  int32_t* multiplier = nullptr;
  int32_t* shift = nullptr;
  float* mean = nullptr;
  float* var = nullptr;
  float* eps_k2 = nullptr;
  double* run_mean = nullptr;  // kCumulativeAverage: Σ batch means; kMomentum: the average
  double* run_var = nullptr;   // the same for the unbiased batch variances
  size_t batches = 0;
  size_t held = 0;

  double AccScale(size_t c) const {
    return double(x_scale) * double(per_channel ? w_scales[c] : w_scales[0]);
  }
};

// Arena bytes of one layer's arrays: bias, multiplier, shift, mean, var, eps_k2, running sums.
inline size_t LayerArrayBytes(size_t channels) {
  return AddSat(MulSat(channels, 3 * sizeof(int32_t) + 3 * sizeof(float)),
                MulSat(channels, 2 * sizeof(double)));
}

// kInvalidModel naming the op and field unless op `desc`'s bn_adapt record can adapt.
Status CheckLayer(const BnAdaptationView& a, const OpDesc& desc, const TensorInfo* tensors,
                  ErrorReporter& errors);

// The constants that make channel c's output |γ|·(y − mean)/√(var + ε·k²) + β: false (and
// nothing written) when the multiplier or the bias would leave the scheme's range.
bool SetChannel(Layer& l, size_t c, double mean, double var);

// The layer's constants and statistics back to the model's.
void ResetLayer(Layer& l);

// Folds the batch the op just ran (sum, sum_sq: Σacc and Σacc² per channel) into the running
// statistics and the layer's constants.
void NormalizeWithBatch(Layer& l, const OpContext& ctx, const AdaptOptions& o, double* sum,
                        double* sum_sq);

}  // namespace edgefold::internal
