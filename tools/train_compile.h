// The compile-side halves of the training mode:
// - `compile --train`: BatchNorm kept, no activation fusion, a fixed batch on the input, and
//   a TrainingSection recording the BN parameters and the training arena the device needs;
// - `compile --calibrate X.npy`: BN population statistics recomputed from data on the
//   runtime's training path (Ioffe & Szegedy, Algorithm 2, or PyTorch's momentum), then folded.
#pragma once
#include <string>
#include <vector>

#include "edgefold/trainer.h"
#include "edgefold_compiler/compiler.h"

namespace onnx { class ModelProto; }

namespace edgefold::tools {

bool LoadOnnx(const std::string& path, onnx::ModelProto* model, std::string* error);

// Sets fold/fusion off and the graph input's batch dim to `batch` (> 0); drops the recorded
// intermediate and output shapes, which were inferred for the exported batch size.
bool ConfigureTrainingCompile(onnx::ModelProto* model, int batch,
                              compiler::CompileOptions* options, std::string* error);

// Fills the model's TrainingSection: batch size, each BatchNorm's tensors, the trainable
// tensors under `trainable`, and the training arena bytes (RequiredTrainingArenaBytes).
bool AddTrainingSection(std::vector<uint8_t>* efb, Trainable trainable, std::string* error);

struct CalibrationReport {
  int batchnorms = 0;
  size_t batches = 0;
  size_t samples_used = 0;
};

// Runs `data` (float32, [S, ...] matching the model input after the batch dim) through the
// unfolded model in batches of `batch` with batch statistics and writes the resulting running
// statistics into `model`'s BatchNorm initializers. `momentum` < 0 selects Algorithm 2's
// cumulative average; otherwise PyTorch's exponential moving average with that momentum.
bool CalibrateBatchNorm(onnx::ModelProto* model, const compiler::CompileOptions& base,
                        const std::string& data_npy, int batch, float momentum,
                        CalibrationReport* report, std::string* error);

bool ParseTrainable(const std::string& text, Trainable* out);

}  // namespace edgefold::tools

namespace edgefold::tools {

// The training-related flags of `edgefold compile`.
struct TrainingCompileFlags {
  bool train = false;            // --train
  int batch = 1;                 // --batch N (training batch)
  Trainable trainable = Trainable::kBatchNorm;   // --trainable
  std::string calibrate_npy;     // --calibrate X.npy
  int calibrate_batch = 32;      // --calibrate-batch N
  float calibrate_momentum = -1; // --calibrate-momentum M (< 0: Algorithm 2 cumulative average)
  bool any() const { return train || !calibrate_npy.empty(); }
};

// Calibrates (if asked), then compiles for training (if asked) or for inference, printing a
// line per stage. Errors come back in the result like CompileFile's.
compiler::CompileResult CompileWithTrainingFlags(const std::string& onnx_path,
                                                 compiler::CompileOptions options,
                                                 const TrainingCompileFlags& flags);

}  // namespace edgefold::tools
