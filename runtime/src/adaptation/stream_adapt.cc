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

void ForwardBatchNormStream(const StreamBn& bn, size_t samples, const StreamOptions& o,
                            const StreamState& st, const kernels::KernelTable& k,
                            const kernels::TrainKernelTable& tk) {
  const size_t spatial = bn.spatial;
  if (spatial >= 2) {
    const float inv_n = 1.0f / static_cast<float>(spatial);
    const float unbias = static_cast<float>(spatial) / static_cast<float>(spatial - 1);
    for (size_t n = 0; n < samples; ++n) {
      const float m = Momentum(o, st.decayed < 0.0f ? o.momentum : st.decayed, n);
      float* sum_d = bn.scratch[0];
      float* sum_d2 = bn.scratch[1];
      tk.channel_moments(bn.x + n * bn.channels * spatial, bn.mean, sum_d, sum_d2, bn.channels,
                         spatial);
      for (size_t c = 0; c < bn.channels; ++c) {
        const float delta = sum_d[c] * inv_n;  // sample mean − running mean
        const float sample_var = std::max(0.0f, sum_d2[c] * inv_n - delta * delta) * unbias;
        bn.mean[c] += m * delta;
        bn.var[c] = std::max((1.0f - m) * bn.var[c] + m * sample_var,
                             o.variance_floor * bn.deployed_var[c]);
      }
    }
  }
  // Normalize with the adapted statistics mixed with the deployed ones, as one per-channel
  // affine map.
  float* scale = bn.scratch[1];
  float* shift = bn.scratch[2];
  const float prior = o.prior;
  for (size_t c = 0; c < bn.channels; ++c) {
    const float mu = (1.0f - prior) * bn.mean[c] + prior * bn.deployed_mean[c];
    const float v = (1.0f - prior) * bn.var[c] + prior * bn.deployed_var[c];
    const BnScaleShift<float> fold =
        FoldBatchNorm<float>(bn.gamma[c], bn.beta[c], mu, v, bn.epsilon);
    scale[c] = fold.scale;
    shift[c] = fold.shift;
  }
  const float* xn = bn.x;
  float* yn = bn.y;
  for (size_t n = 0; n < bn.batch; ++n, xn += bn.channels * spatial, yn += bn.channels * spatial)
    k.channel_affine(xn, scale, shift, yn, bn.channels, spatial, bn.act);
}

void ResetStreamBn(const StreamBn& bn) {
  std::memcpy(bn.mean, bn.deployed_mean, bn.channels * sizeof(float));
  std::memcpy(bn.var, bn.deployed_var, bn.channels * sizeof(float));
}

void RestartStream(StreamState& st) {
  st.samples = 0;
  st.decayed = -1.0f;
  st.window_count = 0;
  st.window_entropy = 0.0f;
  st.reference_entropy = -1.0f;
}

bool FinishStreamStep(const float* logits, size_t samples, size_t classes, const StreamOptions& o,
                      StreamState& st, StreamReport* report) {
  const float log_k = std::log(static_cast<float>(std::max<size_t>(classes, 2)));
  StreamReport r;
  for (size_t n = 0; n < samples; ++n) {
    const float* row = logits + n * classes;
    const float top = *std::max_element(row, row + classes);
    float sum = 0.0f, weighted = 0.0f;  // H = log Σe − Σ e·(z − top) / Σe, with e = exp(z − top)
    for (size_t c = 0; c < classes; ++c) {
      const float e = std::exp(row[c] - top);
      sum += e;
      weighted += e * (row[c] - top);
    }
    const float entropy = (std::log(sum) - weighted / sum) / log_k;
    r.entropy += entropy / static_cast<float>(samples);
    st.window_entropy += entropy;
    if (++st.window_count < o.window) continue;
    const float mean = st.window_entropy / static_cast<float>(st.window_count);
    st.window_count = 0;
    st.window_entropy = 0.0f;
    if (st.reference_entropy < 0.0f) {
      st.reference_entropy = mean;
    } else if (mean > st.reference_entropy + o.entropy_rise) {
      RestartStream(st);
      ++st.resets;
      r.reset = true;
    }
  }
  if (!r.reset) {
    float decayed = st.decayed < 0.0f ? o.momentum : st.decayed;
    for (size_t n = 0; n < samples; ++n) decayed *= o.momentum_decay;
    st.decayed = decayed;
    st.samples += static_cast<uint32_t>(samples);
  }
  r.resets = st.resets;
  r.samples = st.samples;
  if (report != nullptr) *report = r;
  return r.reset;
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
