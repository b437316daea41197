// On-device training: BatchNorm statistics adaptation and SGD fine-tuning in a fixed arena.
//
// The model must be compiled with BatchNorm kept (`edgefold compile --train`, or --no-fold)
// for a fixed batch size N (the graph input's first dim), one input, and one output of logits
// [N, classes] (a final Softmax is allowed: the loss then starts from its input).
//
// Ownership is as for Interpreter: `model` and `arena` are borrowed for the trainer's lifetime,
// both 64-byte aligned; every buffer (activations kept for backward, gradients, parameter
// copies, momentum, BN statistics) is placed inside the arena; no heap, no exceptions.
// The model bytes are never written: trainable parameters and running statistics are copied
// into the arena at Create and can be read back with parameter().
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/interpreter.h"

namespace edgefold {

enum class Trainable : uint8_t {
  kBatchNorm = 0,        // γ and β of every BatchNorm
  kBatchNormAndHead,     // + weights and bias of the last Gemm/Conv before the loss
  kAll,                  // + every Conv/Gemm weight and bias
};

// How running statistics absorb batch statistics.
enum class StatsMode : uint8_t {
  kMomentum = 0,         // PyTorch: new = (1−m)·old + m·batch (variance unbiased)
  kCumulativeAverage,    // Ioffe & Szegedy Alg. 2: mean of batch means, m/(m−1)·mean of batch variances
};

struct TrainOptions {
  float learning_rate = 0.01f;
  float momentum = 0.9f;         // SGD momentum
  float weight_decay = 0.0f;
  float bn_momentum = 0.1f;      // running-statistics momentum (kMomentum)
  StatsMode stats_mode = StatsMode::kMomentum;
  Trainable trainable = Trainable::kBatchNorm;
};

// One parameter or statistic held in the arena.
struct ParameterView {
  const char* name = "";
  int32_t tensor = -1;           // index of the model tensor it was copied from
  float* data = nullptr;
  size_t elems = 0;
  bool trainable = false;        // false for running statistics
};

Status RequiredTrainingArenaBytes(const uint8_t* model, size_t model_bytes,
                                  const TrainOptions& train, size_t* arena_bytes,
                                  const Options& options = Options());

class Trainer {
 public:
  static Status Create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                       const TrainOptions& train, const Options& options, Trainer** out);

  size_t batch_size() const;
  size_t sample_elems() const;     // floats per input sample
  size_t num_classes() const;

  // Forward with batch statistics (running statistics updated), softmax cross-entropy
  // against `labels` (N values in [0, classes)), backward, one SGD step on the trainables.
  // `loss` and `correct` (argmax hits) may be null.
  Status TrainStep(const float* inputs, const int32_t* labels, float* loss, int* correct);
  // Forward with batch statistics only: updates running statistics, nothing else.
  Status AdaptStatistics(const float* inputs);
  // Restarts the cumulative average (StatsMode::kCumulativeAverage) before a calibration pass.
  void ResetStatistics();
  // Eval mode: inference with the running statistics; writes the graph output (N×classes).
  Status Evaluate(const float* inputs, float* logits);
  // Folds each BatchNorm's current γ, β and running statistics into the Conv/Gemm before it
  // (W' = W·γ/√(σ²+ε), b' = (b−μ)·γ/√(σ²+ε) + β), in the arena: Evaluate then runs the folded
  // graph, skipping those BatchNorms. A later TrainStep/AdaptStatistics returns to the
  // unfolded graph until the next Refold. Returns how many BatchNorms were folded.
  size_t Refold();

  // Changes learning rate, momentum, weight decay or statistics handling between steps
  // (the trainable set is fixed at Create).
  void set_options(const TrainOptions& options);
  const TrainOptions& options() const;

  size_t num_parameters() const;
  ParameterView parameter(size_t i) const;

  struct State;
 private:
  explicit Trainer(State* s) : state_(s) {}
  State* state_;
};

}  // namespace edgefold
