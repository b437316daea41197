// Label-free streaming adaptation of BatchNorm statistics (Trainer::StreamStep, StreamOptions
// in edgefold/trainer.h): the BN forward that adapts, the entropy window that resets. It sees
// plain views of what it reads (StreamBn), keeps its own state between steps (StreamState), and
// knows nothing of the trainer that calls it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/trainer.h"
#include "base/error_reporter.h"
#include "kernels/kernel_table.h"
#include "kernels/train_kernel_table.h"

namespace edgefold::internal {

// One BatchNorm as a stream step sees it.
struct StreamBn {
  const float* x = nullptr;  // [batch, channels, spatial]
  float* y = nullptr;        // may be x
  const float* gamma = nullptr;
  const float* beta = nullptr;
  float* mean = nullptr;  // the running statistics: what adapts
  float* var = nullptr;
  const float* deployed_mean = nullptr;  // the model's statistics: the prior and reset point
  const float* deployed_var = nullptr;
  float* scratch[3] = {nullptr, nullptr, nullptr};  // three buffers of `channels` floats
  size_t channels = 0, spatial = 0, batch = 0;
  float epsilon = 0.0f;
  kernels::Activation act;
};

// What adaptation keeps between steps: samples since the last (re)start, the entropy window
// being filled, the reference (first) window's mean entropy (< 0: not measured yet), resets.
struct StreamState {
  uint32_t samples = 0, window_count = 0, resets = 0;
  float window_entropy = 0.0f, reference_entropy = -1.0f;
  float decayed = -1.0f;  // momentum·decay^samples (< 0: restart at momentum)
};

// Updates the BN's running statistics from each of the first `samples` rows of its input (per
// channel over the spatial dims; inputs without spatial dims are not adapted), then normalizes
// every row with them mixed with the deployed statistics.
void ForwardBatchNormStream(const StreamBn& bn, size_t samples, const StreamOptions& o,
                            const StreamState& st, const kernels::KernelTable& k,
                            const kernels::TrainKernelTable& tk);

// After the forward, from the step's `samples` rows of logits [samples, classes]: the
// prediction entropy of each sample, the window it fills, and the state's restart when a
// window's entropy rose above the reference's. True when it restarted: the caller then puts
// every BN's running statistics back (ResetStreamBn).
bool FinishStreamStep(const float* logits, size_t samples, size_t classes, const StreamOptions& o,
                      StreamState& st, StreamReport* report);

// The BN's running statistics back to the deployed ones.
void ResetStreamBn(const StreamBn& bn);
// Adaptation starts over (resets since Create stay counted).
void RestartStream(StreamState& st);

// kInvalidArgument naming the field when an option is out of range.
Status CheckStreamOptions(const StreamOptions& o, ErrorReporter& errors);

}  // namespace edgefold::internal
