#include "adaptation/int8_layer.h"

#include <cmath>

#include "adaptation/int8_accumulators.h"
#include "base/fold_batchnorm.h"
#include "kernels/requant_multiplier.h"

namespace edgefold::internal {
namespace {

bool Finite(const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

// Deployed statistics of channel c in the op's output domain: mean β, variance γ² − ε·k².
double DeployedVar(const Layer& l, size_t c) {
  const double v = double(l.gamma_abs[c]) * l.gamma_abs[c] - l.model_eps_k2[c];
  return v > 0.0 ? v : 0.0;
}

}  // namespace

// The constants that make channel c's output |γ|·(y − mean)/√(var + ε·k²) + β: false (and
// nothing written) when the multiplier or the bias would leave the scheme's range.
bool SetChannel(Layer& l, size_t c, double mean, double var) {
  const double g = l.gamma_abs[c];
  if (g == 0.0) return true;  // a constant channel (β): nothing to normalize
  const BnScaleShift<double> fold =
      FoldBatchNorm<double>(g, l.beta[c], mean, var, l.model_eps_k2[c]);
  const double r = fold.scale, a = l.AccScale(c);
  int32_t multiplier = 0, shift = 0;
  if (!(r > 0.0) || !std::isfinite(r) ||
      !kernels::QuantizeMultiplier(a * r / double(l.y_scale), &multiplier, &shift))
    return false;
  const double bias = double(l.model_bias[c]) + std::nearbyint(fold.shift / (a * r));
  if (!(std::fabs(bias) <= kMaxBias)) return false;
  l.bias[c] = static_cast<int32_t>(bias);
  l.multiplier[c] = multiplier;
  l.shift[c] = shift;
  l.eps_k2[c] = static_cast<float>(double(l.model_eps_k2[c]) * r * r);
  return true;
}

void ResetLayer(Layer& l) {
  std::memcpy(l.bias, l.model_bias, l.channels * sizeof(int32_t));
  std::memcpy(l.multiplier, l.model_multiplier, l.channels * sizeof(int32_t));
  std::memcpy(l.shift, l.model_shift, l.channels * sizeof(int32_t));
  std::memcpy(l.eps_k2, l.model_eps_k2, l.channels * sizeof(float));
  for (size_t c = 0; c < l.channels; ++c) {
    l.mean[c] = l.beta[c];
    l.var[c] = static_cast<float>(DeployedVar(l, c));
    l.run_mean[c] = l.run_var[c] = 0.0;
  }
  l.batches = 0;
  l.held = 0;
}

// Measures the batch, normalizes the op with it (BatchNorm's training forward) and folds it
// into the running statistics.
void NormalizeWithBatch(Layer& l, const OpContext& ctx, const AdaptOptions& o, double* sum,
                        double* sum_sq) {
  const size_t count = AccumulatorMoments(ctx, l.model_bias, sum, sum_sq);
  if (count < 2) return;
  const double n = static_cast<double>(count);
  const bool cumulative = o.mode == StatsMode::kCumulativeAverage;
  if (!cumulative && l.batches == 0)  // a moving average starts from the deployed statistics
    for (size_t c = 0; c < l.channels; ++c) {
      l.run_mean[c] = l.beta[c];
      l.run_var[c] = DeployedVar(l, c);
    }
  for (size_t c = 0; c < l.channels; ++c) {
    const double a = l.AccScale(c), mean_acc = sum[c] / n;
    const double var_acc = sum_sq[c] / n - mean_acc * mean_acc;
    const double mean = a * mean_acc, var = a * a * (var_acc > 0.0 ? var_acc : 0.0);
    if (!SetChannel(l, c, mean, var)) ++l.held;
    const double unbiased = var * n / (n - 1.0);
    if (cumulative) {
      l.run_mean[c] += mean;
      l.run_var[c] += unbiased;
    } else {
      l.run_mean[c] = (1.0 - o.momentum) * l.run_mean[c] + o.momentum * mean;
      l.run_var[c] = (1.0 - o.momentum) * l.run_var[c] + o.momentum * unbiased;
    }
  }
  ++l.batches;
  for (size_t c = 0; c < l.channels; ++c) {
    const double k = cumulative ? 1.0 / static_cast<double>(l.batches) : 1.0;
    l.mean[c] = static_cast<float>(l.run_mean[c] * k);
    l.var[c] = static_cast<float>(l.run_var[c] * k);
  }
}

Status CheckLayer(const BnAdaptationView& a, const OpDesc& desc, const TensorInfo* tensors,
                  ErrorReporter& errors) {
  const char* name = desc.name;
  if (desc.kind != OpKind::kConvInt8 && desc.kind != OpKind::kGemmInt8) {
    errors.Report("op '%s': bn_adapt on a %s (only ConvInt8 and GemmInt8 can adapt)", name,
                  OpKindName(desc.kind));
    return Status::kInvalidModel;
  }
  const size_t channels = tensors[desc.inputs[2]].elems;
  const char* fields[3] = {"gamma_abs", "beta", "eps_k2"};
  const float* v[3] = {a.gamma_abs, a.beta, a.eps_k2};
  const uint32_t counts[3] = {a.gamma_abs_count, a.beta_count, a.eps_k2_count};
  for (int i = 0; i < 3; ++i) {
    if (v[i] == nullptr || counts[i] != channels) {
      errors.Report("op '%s': bn_adapt.%s needs %zu values (one per output channel), has %u", name,
                    fields[i], channels, counts[i]);
      return Status::kInvalidModel;
    }
    if (!Finite(v[i], channels)) {
      errors.Report("op '%s': bn_adapt.%s holds NaN or Inf", name, fields[i]);
      return Status::kInvalidModel;
    }
  }
  for (size_t c = 0; c < channels; ++c)
    if (a.gamma_abs[c] < 0.0f || !(a.eps_k2[c] > 0.0f)) {
      errors.Report("op '%s': bn_adapt channel %zu: gamma_abs %g must be >= 0 and eps_k2 %g > 0",
                    name, c, double(a.gamma_abs[c]), double(a.eps_k2[c]));
      return Status::kInvalidModel;
    }
  const TensorInfo& w = tensors[desc.inputs[1]];
  if (w.num_scales != 1 && w.num_scales != channels) {
    errors.Report("op '%s': W '%s' needs one scale or one per output channel to adapt", name,
                  w.name);
    return Status::kInvalidModel;
  }
  return Status::kOk;
}

}  // namespace edgefold::internal
