// Compiling for on-device training, and calibrating BatchNorm statistics from data: the
// compile-side halves of edgefold's training mode, for library users and the CLI alike.
//
// CompileForTraining keeps BatchNorm, fixes the training batch, and writes the model's
// TrainingSection: each BatchNorm's tensors, the trainable tensors (decided from the graph), and
// every training buffer's offset, named by role and planned by lifetime with the arena planner
// (the runtime trainer finds each of its buffers by role).
// Needs the runtime linked into the compiler (EDGEFOLD_COMPILER_VERIFY, the default).
#pragma once
#include <string>
#include <vector>

#include "edgefold_compiler/compiler.h"

namespace onnx {
class ModelProto;
}

namespace edgefold::compiler {

enum class TrainableSet { kBatchNorm, kBatchNormAndHead, kAll };  // "bn", "bn+head", "all"
bool ParseTrainableSet(const std::string& name, TrainableSet* out);
const char* TrainableSetName(TrainableSet set);

struct TrainingOptions {
  int batch = 1;  // the training batch
  // The batch the model's graph (inference, `edgefold run`, the adapted model) is compiled
  // for; the trainer runs the same graph at `batch` (a multiple of it). A graph that mixes
  // samples (a Reshape folding the batch away, a Concat along it) needs inference_batch = batch.
  int inference_batch = 1;
  TrainableSet trainable = TrainableSet::kBatchNorm;
  // A sparse update: only parameters of ops at or after this node (an ONNX node name or the
  // name of its output) are trained; the backward stops there.
  std::string train_from;
  // A sparse update: only the last K BatchNorm layers, and the trainable set after the
  // first of them (0: every layer).
  int trainable_last = 0;
  bool refold_weights = false;  // Trainer::Refold writes folded weight copies
  // --bn-stats frozen: BatchNorm trains in its eval form (running statistics fixed); the
  // trainer loops over the batch one graph batch at a time, so the arena does not depend on
  // `batch`. false (--bn-stats batch): batch statistics, as PyTorch's train().
  bool frozen_statistics = false;
  // K outputs appended to the classifier (the last Gemm): zero in the model, initialized by
  // the trainer on the device (Kaiming uniform before a ReLU, else Xavier; TrainOptions::seed)
  // and learned by training, which must include the head (--trainable bn+head or all).
  int new_classes = 0;
  // --saved-precision: BatchNorm's x̂ kept from forward to backward in float32, or in 16 bits
  // (float16, bfloat16: half the memory; the arithmetic stays float32).
  enum class Saved { kFloat32, kFloat16, kBFloat16 } saved_precision = Saved::kFloat32;
  // --recompute: the backward runs in segments; each but the last runs its forward again from
  // its checkpoints just before its backward, so the values it keeps live only then (time for
  // memory). The split with the smallest planned arena is chosen; bit-identical updates.
  bool recompute = false;
};

struct TrainingReport {
  int batch = 0;
  int inference_batch = 0;  // the graph's batch (the model's input)
  int batchnorms_kept = 0;
  int trainable_tensors = 0;
  std::string first_trained_op;        // where the backward stops
  std::string new_classes_head;        // the classifier --new-classes widened
  uint64_t arena_bytes = 0;            // the training arena the device needs
  uint64_t lower_bound = 0;            // largest sum of live training buffers
  uint64_t planned_bytes = 0;          // span of the planned buffers
  uint64_t inference_arena_bytes = 0;  // the same model's inference arena (BatchNorm kept)
  // The model as it is deployed for inference (BatchNorm folded, activations fused, at the
  // inference batch): the arena Interpreter::Create needs, and its planned tensors alone (the
  // `arena:` line of a plain compile). Set by MeasureDeployedArena.
  uint64_t deployed_arena_bytes = 0;
  uint64_t deployed_planned_bytes = 0;
  int recompute_segments = 0;  // --recompute: the backward's segments (0: none)
};

struct TrainingCompileResult {
  CompileResult compiled;  // compiled.ok, .error, .model (with the section)
  TrainingReport training;
};

// Compiles the model once, then writes it with its TrainingSection.
TrainingCompileResult CompileForTraining(const onnx::ModelProto& model, CompileOptions options,
                                         const TrainingOptions& training);

// The same graph compiled as it is deployed (every fold, the inference batch), a second compile
// for comparison: sets report->deployed_arena_bytes and deployed_planned_bytes. False when that
// compile fails (the report is left as it was).
bool MeasureDeployedArena(const onnx::ModelProto& model, CompileOptions options,
                          const TrainingOptions& training, TrainingReport* report);

// The two steps CompileForTraining makes, for tests and tools that compile in between:
// options for a trainable graph (BN kept, no fusion but into BN, the batch on the input) ...
bool ConfigureTrainingCompile(onnx::ModelProto* model, int batch, CompileOptions* options,
                              std::string* error);
// ... and the TrainingSection added to the compiled bytes (training.batch: the training batch;
// 0 keeps the compiled graph's).
bool AddTrainingSection(std::vector<uint8_t>* efb, const TrainingOptions& training,
                        TrainingReport* report, std::string* error);

struct CalibrationReport {
  int batchnorms = 0;
  size_t batches = 0;
  size_t samples_used = 0;
};

// Runs `data` (float32 samples matching the model input after the batch dim; `elems` values in
// all) through the unfolded model in batches of `batch` with batch statistics and writes the
// resulting running statistics into `model`'s BatchNorm initializers. `momentum` < 0 selects
// Ioffe & Szegedy's Algorithm 2 (cumulative average, unbiased variance); otherwise PyTorch's
// moving average with that momentum.
bool CalibrateBatchNorm(onnx::ModelProto* model, const CompileOptions& base, const float* data,
                        size_t elems, int batch, float momentum, CalibrationReport* report,
                        std::string* error);

}  // namespace edgefold::compiler
