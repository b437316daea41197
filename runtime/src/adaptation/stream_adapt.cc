#include "adaptation/stream_adapt.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/fold_batchnorm.h"

namespace edgefold::internal {
namespace {

// DUA's schedule: a large first step that decays per sample to a floor; `decayed` is
// momentum·decay^t for the step's first sample (kept in the state, no pow per sample).
float Momentum(const StreamOptions& o, float decayed, size_t row) {
  for (size_t r = 0; r < row; ++r) decayed *= o.momentum_decay;
  return std::max(decayed, o.momentum_min);
}

}  // namespace

void ForwardBatchNormStream(Trainer::State& s, const BnState& bn) {
  const StreamOptions& o = *s.stream;
  const OpDesc& op = s.ops[bn.op];
  const float* x = s.tensors[op.inputs[0]].data;
  const float* gamma = s.tensors[op.inputs[1]].data;
  const float* beta = s.tensors[op.inputs[2]].data;
  float* mean = s.tensors[op.inputs[3]].data;  // the running statistics: what adapts
  float* var = s.tensors[op.inputs[4]].data;
  const size_t spatial = bn.spatial;
  if (spatial >= 2) {
    const float inv_n = 1.0f / static_cast<float>(spatial);
    const float unbias = static_cast<float>(spatial) / static_cast<float>(spatial - 1);
    for (size_t n = 0; n < StreamSamples(s); ++n) {
      const float m = Momentum(o, s.stream_decayed < 0.0f ? o.momentum : s.stream_decayed, n);
      // BN's x̂ statistics buffers hold the sums (this BN runs no backward in a stream step).
      float* sum_d = bn.mean;
      float* sum_d2 = bn.var;
      s.tk->channel_moments(x + n * bn.channels * spatial, mean, sum_d, sum_d2, bn.channels,
                            spatial);
      for (size_t c = 0; c < bn.channels; ++c) {
        const float delta = sum_d[c] * inv_n;  // sample mean − running mean
        const float sample_var = std::max(0.0f, sum_d2[c] * inv_n - delta * delta) * unbias;
        mean[c] += m * delta;
        var[c] =
            std::max((1.0f - m) * var[c] + m * sample_var, o.variance_floor * bn.deployed_var[c]);
      }
    }
  }
  // Normalize with the adapted statistics mixed with the deployed ones, as one per-channel
  // affine map (BN's x̂ buffers serve as its scale and shift: this BN runs no backward here).
  float* scale = bn.var;
  float* shift = bn.inv_std;
  const float eps = op.options.batchnorm.epsilon, prior = o.prior;
  for (size_t c = 0; c < bn.channels; ++c) {
    const float mu = (1.0f - prior) * mean[c] + prior * bn.deployed_mean[c];
    const float v = (1.0f - prior) * var[c] + prior * bn.deployed_var[c];
    const BnScaleShift<float> fold = FoldBatchNorm<float>(gamma[c], beta[c], mu, v, eps);
    scale[c] = fold.scale;
    shift[c] = fold.shift;
  }
  const float* xn = x;
  float* yn = s.tensors[op.outputs[0]].data;
  for (size_t n = 0; n < bn.batch; ++n, xn += bn.channels * spatial, yn += bn.channels * spatial)
    s.k->channel_affine(xn, scale, shift, yn, bn.channels, spatial, op.options.batchnorm.act);
}

void ResetStreamStatistics(Trainer::State& s) {
  for (size_t b = 0; b < s.num_bns; ++b) {
    const BnState& bn = s.bns[b];
    const OpDesc& op = s.ops[bn.op];
    std::memcpy(s.tensors[op.inputs[3]].data, bn.deployed_mean, bn.channels * sizeof(float));
    std::memcpy(s.tensors[op.inputs[4]].data, bn.deployed_var, bn.channels * sizeof(float));
  }
  s.stream_samples = 0;
  s.stream_decayed = -1.0f;
  s.window_count = 0;
  s.window_entropy = 0.0f;
  s.reference_entropy = -1.0f;
  s.refolded = false;
}

size_t StreamSamples(const Trainer::State& s) {
  const bool scaled = s.summary.training_batch_scale > 1 && !s.summary.frozen_statistics;
  return scaled ? s.batch / s.summary.training_batch_scale : s.batch;
}

void StageStreamInputs(Trainer::State& s, const float* inputs) {
  const TensorInfo& x = s.tensors[s.input];
  const size_t step_elems = x.elems / s.batch * StreamSamples(s);
  for (size_t at = 0; at < x.elems; at += step_elems)
    std::memcpy(x.data + at, inputs, step_elems * sizeof(float));
}

void FinishStreamStep(Trainer::State& s, StreamReport* report) {
  const StreamOptions& o = *s.stream;
  const float* z = s.tensors[s.logits].data;
  const float log_k = std::log(static_cast<float>(std::max<size_t>(s.classes, 2)));
  StreamReport r;
  const size_t samples = StreamSamples(s);
  for (size_t n = 0; n < samples; ++n) {
    const float* row = z + n * s.classes;
    const float top = *std::max_element(row, row + s.classes);
    float sum = 0.0f, weighted = 0.0f;  // H = log Σe − Σ e·(z − top) / Σe, with e = exp(z − top)
    for (size_t c = 0; c < s.classes; ++c) {
      const float e = std::exp(row[c] - top);
      sum += e;
      weighted += e * (row[c] - top);
    }
    const float entropy = (std::log(sum) - weighted / sum) / log_k;
    r.entropy += entropy / static_cast<float>(samples);
    s.window_entropy += entropy;
    if (++s.window_count < o.window) continue;
    const float mean = s.window_entropy / static_cast<float>(s.window_count);
    s.window_count = 0;
    s.window_entropy = 0.0f;
    if (s.reference_entropy < 0.0f) {
      s.reference_entropy = mean;
    } else if (mean > s.reference_entropy + o.entropy_rise) {
      ResetStreamStatistics(s);
      ++s.stream_resets;
      r.reset = true;
    }
  }
  if (!r.reset) {
    float decayed = s.stream_decayed < 0.0f ? o.momentum : s.stream_decayed;
    for (size_t n = 0; n < samples; ++n) decayed *= o.momentum_decay;
    s.stream_decayed = decayed;
    s.stream_samples += static_cast<uint32_t>(samples);
  }
  r.resets = s.stream_resets;
  r.samples = s.stream_samples;
  if (report != nullptr) *report = r;
}

Status CheckStreamOptions(const StreamOptions& o, ErrorReporter& errors) {
  const char* bad = nullptr;
  if (!(o.momentum > 0.0f && o.momentum <= 1.0f))
    bad = "momentum must be in (0, 1]";
  else if (!(o.momentum_decay > 0.0f && o.momentum_decay <= 1.0f))
    bad = "momentum_decay must be in (0, 1]";
  else if (!(o.momentum_min >= 0.0f && o.momentum_min <= o.momentum))
    bad = "momentum_min must be in [0, momentum]";
  else if (!(o.prior >= 0.0f && o.prior <= 1.0f))
    bad = "prior must be in [0, 1]";
  else if (!(o.variance_floor >= 0.0f && o.variance_floor <= 1.0f))
    bad = "variance_floor must be in [0, 1]";
  else if (o.window == 0)
    bad = "window must be at least 1";
  else if (!(o.entropy_rise >= 0.0f))
    bad = "entropy_rise must be >= 0";
  if (bad == nullptr) return Status::kOk;
  errors.Report("StreamOptions: %s", bad);
  return Status::kInvalidArgument;
}

}  // namespace edgefold::internal
