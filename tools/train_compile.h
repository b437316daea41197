// The CLI side of compiling for training: flags in, the library's edgefold_compiler/training.h
// out, a line per stage printed. Only flag handling lives here.
#pragma once
#include <string>

#include "edgefold/trainer.h"
#include "edgefold_compiler/training.h"

namespace onnx {
class ModelProto;
}

namespace edgefold::tools {

bool LoadOnnx(const std::string& path, onnx::ModelProto* model, std::string* error);

// "bn", "bn+head", "all", "model" (the runtime's names).
bool ParseTrainable(const std::string& text, Trainable* out);

// The training-related flags of `edgefold compile`.
struct TrainingCompileFlags {
  bool train = false;                  // --train
  compiler::TrainingOptions training;  // --batch, --trainable, --train-from, --trainable-last,
                                       // --refold-weights
  std::string calibrate_npy;           // --calibrate X.npy
  int calibrate_batch = 32;            // --calibrate-batch N
  float calibrate_momentum = -1;       // --calibrate-momentum M (< 0: Algorithm 2)
  bool any() const { return train || !calibrate_npy.empty(); }
};

// Calibrates (if asked), then compiles for training (if asked) or for inference, printing a
// line per stage. Errors come back in the result like CompileFile's.
compiler::CompileResult CompileWithTrainingFlags(const std::string& onnx_path,
                                                 compiler::CompileOptions options,
                                                 const TrainingCompileFlags& flags);

}  // namespace edgefold::tools
