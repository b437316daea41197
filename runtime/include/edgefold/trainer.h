// On-device training: BatchNorm statistics adaptation and SGD fine-tuning in a fixed arena.
//
// The model must be compiled with BatchNorm kept (`edgefold compile --train`, or --no-fold),
// with one input and one output of logits [batch, classes] (a final Softmax is allowed: the
// loss then starts from its input). The training batch N is the model's training section's
// (compile --batch N); the graph itself may be at a smaller batch (--infer-batch, default 1):
// the trainer then runs it scaled to N, or, with frozen statistics, N / graph batch times per
// step. batch_size() is N.
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
  kBatchNorm = 0,     // γ and β of every BatchNorm
  kBatchNormAndHead,  // + weights and bias of the last Gemm/Conv before the loss
  kAll,               // + every Conv/Gemm weight and bias
  kModel,             // the set the model records (compile --train --trainable); kBatchNorm
                      // for a model that records none. Any other value must name the same
                      // set as the model records, or Create fails naming both.
};
// "bn", "bn+head", "all", "model": the names the CLI uses.
const char* TrainableName(Trainable trainable);

// How running statistics absorb batch statistics.
enum class StatsMode : uint8_t {
  kMomentum = 0,       // PyTorch: new = (1−m)·old + m·batch (variance unbiased)
  kCumulativeAverage,  // Ioffe & Szegedy Alg. 2: mean of batch means, m/(m−1)·mean of batch variances
};

struct TrainOptions {
  float learning_rate = 0.01f;
  float momentum = 0.9f;  // SGD momentum
  float weight_decay = 0.0f;
  float bn_momentum = 0.1f;  // running-statistics momentum (kMomentum)
  StatsMode stats_mode = StatsMode::kMomentum;
  Trainable trainable = Trainable::kModel;
  // Seeds the initialization of the classes a model compiled with --new-classes adds.
  uint32_t seed = 1;
};

// Label-free streaming adaptation (Trainer::StreamStep): every BatchNorm over a spatial input
// updates its statistics from each sample (per channel over H·W) before normalizing it, with
// an exponential moving average whose momentum decays from sample to sample (DUA, CVPR'22:
// m_t = max(momentum·decay^t, momentum_min)); the deployed statistics stay a prior. When the
// mean prediction entropy of a window of samples rises above the first window's by
// `entropy_rise`, the statistics return to the deployed ones and adaptation starts over (long
// streams otherwise drift into collapse: RDumb, NeurIPS'23). No backward, no labels, no
// extra arena: the deployed statistics (the prior) are read from the model in place.
struct StreamOptions {
  float momentum = 0.1f;         // the first sample's weight after a (re)start
  float momentum_decay = 0.94f;  // per sample
  float momentum_min = 0.005f;   // the floor the momentum decays to (keeps tracking slow drift)
  float prior = 0.2f;            // weight of the deployed statistics in what normalizes
  float variance_floor = 0.05f;  // adapted variance ≥ this × deployed variance, per channel
  uint32_t window = 32;          // samples per entropy window
  float entropy_rise = 0.15f;    // reset threshold on the window's mean entropy / log(classes)
};

struct StreamReport {
  float entropy = 0;     // of the step's predictions (their mean), / log(classes), in [0, 1]
  bool reset = false;    // this sample closed a window that triggered a reset
  uint32_t resets = 0;   // since Create
  uint32_t samples = 0;  // since the last (re)start
};

// One parameter or statistic held in the arena.
struct ParameterView {
  const char* name = "";
  int32_t tensor = -1;  // index of the model tensor it was copied from
  float* data = nullptr;
  size_t elems = 0;
  bool trainable = false;  // false for running statistics
};

// What a training buffer holds; with TrainingBuffer::owner, index and life it names the
// buffer's role, unique within a model (the values match the schema's TrainingBufferKind).
enum class TrainingBufferKind : uint8_t {
  kActivation = 0,        // owner: tensor; a value kept for the backward
  kGradient,              // owner: tensor; a value's gradient
  kParameter,             // owner: tensor; the arena copy of a parameter or BN statistic
  kParameterGradient,     // owner: tensor
  kVelocity,              // owner: tensor; SGD momentum
  kNormalized,            // owner: BatchNorm op; x̂ (16 bits under --saved-precision)
  kStatistics,            // owner: BatchNorm op; index 0 batch mean, 1 variance, 2 1/σ
  kFrozenParamGradients,  // owner: BatchNorm op; dγ, dβ of a BN whose γ, β are frozen
  kFolded,                // owner: BatchNorm op; Refold's W' (index 0) and b' (index 1)
  kScratch,               // owner: op; its forward scratch
  kColumns,               // owner: Conv op; im2col of x (index 0) and of dx (index 1)
  kTemp,                  // owner -1; one tensor's worth for overwrite-then-add
};
// "activation", "gradient", … (for messages).
const char* TrainingBufferKindName(TrainingBufferKind kind);

// One buffer of a training step — an activation kept for the backward, a gradient, a parameter
// copy, its gradient or momentum, BatchNorm state, scratch — with its role and the steps it is
// live: forward of op i is step i, the loss step n (= number of ops), the backward of op i step
// 2n − i (with recomputed segments, each segment's forward again then its backward, from the
// last segment: a recomputed value then has one buffer for the first forward, life 0, and
// another from its recomputation to its backward, life 1); a buffer that outlives a step spans
// the whole step.
struct TrainingBuffer {
  size_t bytes = 0;
  int32_t first_step = 0, last_step = 0;
  TrainingBufferKind kind = TrainingBufferKind::kActivation;
  int32_t owner = -1;  // tensor or op index (TrainingBufferKind), -1 for kTemp
  uint8_t index = 0;   // which of the owner's buffers of this kind
  uint8_t life = 0;    // 1: the second buffer of a recomputed segment
};
using TrainingBufferFn = void (*)(void* user, const TrainingBuffer& buffer);

// Lists the training buffers of `model` (compiled with BatchNorm kept), each named by role.
// The compiler plans them by lifetime and stores each buffer's offset with its role in the
// model's training section; Create then finds every buffer's offset by its role (the order of
// the list or of the section's records does not matter).
Status ForEachTrainingBuffer(const uint8_t* model, size_t model_bytes, const TrainOptions& train,
                             TrainingBufferFn visit, void* user,
                             const Options& options = Options());

Status RequiredTrainingArenaBytes(const uint8_t* model, size_t model_bytes,
                                  const TrainOptions& train, size_t* arena_bytes,
                                  const Options& options = Options());

class Trainer {
 public:
  static Status Create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                       const TrainOptions& train, const Options& options, Trainer** out);

  size_t batch_size() const;
  size_t sample_elems() const;  // floats per input sample
  size_t num_classes() const;

  // Forward with batch statistics (running statistics updated), softmax cross-entropy
  // against `labels` (N values in [0, classes)), backward, one SGD step on the trainables.
  // `loss` and `correct` (argmax hits) may be null.
  Status TrainStep(const float* inputs, const int32_t* labels, float* loss, int* correct);
  // Forward with batch statistics only: updates running statistics, nothing else.
  Status AdaptStatistics(const float* inputs);
  // Restarts the cumulative average (StatsMode::kCumulativeAverage) before a calibration pass.
  void ResetStatistics();
  // Label-free streaming adaptation (StreamOptions): the graph's batch of samples (one, for a
  // model compiled with the default --infer-batch 1) is normalized with statistics updated
  // from it, and its logits written (graph batch × classes). `report` may be null.
  Status StreamStep(const float* inputs, float* logits, const StreamOptions& options,
                    StreamReport* report = nullptr);
  // Back to the deployed statistics (those in the model), as a stream reset does.
  void ResetStream();
  // Eval mode: inference with the running statistics; writes the graph output (N×classes).
  Status Evaluate(const float* inputs, float* logits);
  // Folds each BatchNorm's current γ, β and running statistics into the Conv/Gemm before it
  // (W' = W·γ/√(σ²+ε), b' = (b−μ)·γ/√(σ²+ε) + β), in the arena: Evaluate then runs the folded
  // graph, skipping those BatchNorms. A later TrainStep/AdaptStatistics returns to the
  // unfolded graph until the next Refold. Returns how many BatchNorms were folded.
  // A model compiled without --refold-weights keeps its weights in flash: each BatchNorm then
  // runs as its per-channel affine map after the conv (exact, no weight copy in the arena).
  size_t Refold();

  // Changes learning rate, momentum, weight decay or statistics handling between steps
  // (the trainable set is fixed at Create).
  void set_options(const TrainOptions& options);
  const TrainOptions& options() const;

  size_t num_parameters() const;
  ParameterView parameter(size_t i) const;

  // The BatchNorms in graph order with their arena copies (fleet update records read and
  // write them: edgefold/update_record.h). gamma and beta are null when the model keeps them
  // out of the arena (not trainable and not copied).
  struct BatchNormView {
    const char* name = "";
    size_t channels = 0;
    float* mean = nullptr;
    float* var = nullptr;
    float* gamma = nullptr;
    float* beta = nullptr;
  };
  size_t num_batchnorms() const;
  BatchNormView batchnorm(size_t i) const;

  // The largest span of the arena that holds nothing kept from one call to the next: only
  // activations, gradients, x̂, batch scratch and im2col columns (not parameters, momenta,
  // BatchNorm statistics or Refold's folded weights). Between calls of TrainStep,
  // AdaptStatistics, StreamStep, Evaluate and Refold its bytes are the caller's (a device
  // lends them to the fleet exchange: docs/fleet.md); each of those calls overwrites them.
  // {nullptr, 0} for a model compiled without a training plan.
  struct IdleSpan {
    uint8_t* data = nullptr;
    size_t bytes = 0;
  };
  IdleSpan idle_span() const;

  // The model's size in bytes (the model_bytes given to Create): what ExportModel writes.
  size_t model_bytes() const;
  // Writes the adapted model into `out` (caller-owned, at least model_bytes(), not overlapping
  // the model): the model's bytes with every parameter and running statistic replaced by the
  // trainer's current values. BatchNorm stays unfolded and the training section stays, so
  // Interpreter::Create runs it in eval mode and a Trainer trains it further.
  // kInvalidArgument, with a message, when `out` is null or short.
  Status ExportModel(uint8_t* out, size_t out_bytes) const;

  struct State;

 private:
  explicit Trainer(State* s) : state_(s) {}
  State* state_;
};

}  // namespace edgefold
