#include "train_compile.h"

#include <onnx/onnx_pb.h>

#include <cstdio>
#include <fstream>

#include "npy.h"

namespace edgefold::tools {

bool LoadOnnx(const std::string& path, onnx::ModelProto* model, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in || !model->ParseFromIstream(&in)) {
    *error = path + ": not a readable ONNX model";
    return false;
  }
  return true;
}

bool ParseTrainable(const std::string& text, Trainable* out) {
  if (text == "bn")
    *out = Trainable::kBatchNorm;
  else if (text == "bn+head")
    *out = Trainable::kBatchNormAndHead;
  else if (text == "all")
    *out = Trainable::kAll;
  else if (text == "model")
    *out = Trainable::kModel;
  else
    return false;
  return true;
}

namespace {

// --calibrate X.npy: the BatchNorm statistics re-estimated over X before compiling.
bool Calibrate(const TrainingCompileFlags& flags, const compiler::CompileOptions& options,
               onnx::ModelProto* model, std::string* error) {
  NpyArray data;
  if (!ReadNpy(flags.calibrate_npy, &data, error)) return false;
  if (data.dtype != NpyDType::kFloat32) {
    *error = "calibration: " + flags.calibrate_npy + ": needs float32 data";
    return false;
  }
  compiler::CalibrationReport report;
  if (!compiler::CalibrateBatchNorm(model, options, data.f32.data(), data.f32.size(),
                                    flags.calibrate_batch, flags.calibrate_momentum, &report,
                                    error)) {
    *error = "calibration: " + flags.calibrate_npy + ": " + *error;
    return false;
  }
  std::printf(
      "calibrated %d BatchNorm layers over %zu batches (%zu samples, %s)\n", report.batchnorms,
      report.batches, report.samples_used,
      flags.calibrate_momentum < 0 ? "cumulative average, unbiased variance" : "moving average");
  return true;
}

void PrintTrainingReport(const compiler::TrainingReport& t,
                         const compiler::TrainingOptions& training) {
  if (training.new_classes > 0)
    std::printf("classifier '%s': %d new outputs (initialized and learned on the device)\n",
                t.new_classes_head.c_str(), training.new_classes);
  std::printf(
      "training: batch %d (inference batch %d), %d BatchNorm layers kept, %d trainable tensors "
      "(%s), "
      "backward down to '%s'\n",
      t.batch, t.inference_batch, t.batchnorms_kept, t.trainable_tensors,
      compiler::TrainableSetName(training.trainable), t.first_trained_op.c_str());
  if (t.recompute_segments > 0)
    std::printf(
        "recompute: the backward runs in %d segments, each but the last re-running its forward\n",
        t.recompute_segments);
  else if (training.recompute)
    std::printf("recompute: no split of the backward plans a smaller arena; every value is kept\n");
  std::printf(
      "training arena: %llu bytes (lower bound %llu, inference arena %llu); buffers planned by "
      "lifetime in %llu bytes\n",
      static_cast<unsigned long long>(t.arena_bytes),
      static_cast<unsigned long long>(t.lower_bound),
      static_cast<unsigned long long>(t.inference_arena_bytes),
      static_cast<unsigned long long>(t.planned_bytes));
  if (t.deployed_arena_bytes > 0 && t.deployed_planned_bytes > 0)
    std::printf(
        "versus the deployed model (BatchNorm folded): inference arena %llu bytes (planned tensors "
        "%llu): "
        "%.2fx, planned %.2fx\n",
        static_cast<unsigned long long>(t.deployed_arena_bytes),
        static_cast<unsigned long long>(t.deployed_planned_bytes),
        double(t.arena_bytes) / double(t.deployed_arena_bytes),
        double(t.planned_bytes) / double(t.deployed_planned_bytes));
}

}  // namespace

compiler::CompileResult CompileWithTrainingFlags(const std::string& onnx_path,
                                                 compiler::CompileOptions options,
                                                 const TrainingCompileFlags& flags) {
  compiler::CompileResult result;
  onnx::ModelProto model;
  if (!LoadOnnx(onnx_path, &model, &result.error)) return result;
  if (!flags.calibrate_npy.empty() && !Calibrate(flags, options, &model, &result.error))
    return result;
  if (!flags.train) return compiler::CompileModel(model, options);
  compiler::TrainingCompileResult r = compiler::CompileForTraining(model, options, flags.training);
  if (!r.compiled.ok) return r.compiled;
  compiler::MeasureDeployedArena(model, options, flags.training,
                                 &r.training);  // for the ratio below
  PrintTrainingReport(r.training, flags.training);
  return r.compiled;
}

}  // namespace edgefold::tools
