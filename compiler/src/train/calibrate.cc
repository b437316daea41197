// compile --calibrate: BatchNorm population statistics recomputed from data on the runtime's
// training path (batch statistics, then the cumulative average of Algorithm 2 or PyTorch's
// moving average), written back into the ONNX initializers before the usual fold.
#include <onnx/onnx_pb.h>

#include <string>

#include "edgefold/trainer.h"
#include "edgefold_compiler/training.h"
#include "train/aligned_model.h"

namespace edgefold::compiler {
namespace {

// Replaces a float initializer's values, keeping its name, shape and type.
bool SetInitializer(onnx::ModelProto* m, const std::string& name, const float* data, size_t elems) {
  for (auto& init : *m->mutable_graph()->mutable_initializer()) {
    if (init.name() != name) continue;
    init.clear_float_data();
    init.set_raw_data(std::string(reinterpret_cast<const char*>(data), elems * sizeof(float)));
    return true;
  }
  return false;
}

}  // namespace

bool CalibrateBatchNorm(onnx::ModelProto* model, const CompileOptions& base, const float* data,
                        size_t elems, int batch, float momentum, CalibrationReport* report,
                        std::string* error) {
  CompileOptions options = base;
  onnx::ModelProto trainable = *model;
  if (!ConfigureTrainingCompile(&trainable, batch, &options, error)) return false;
  const CompileResult unfolded = CompileModel(trainable, options);
  if (!unfolded.ok) {
    *error = unfolded.error;
    return false;
  }
  AlignedBuffer bytes = AlignedCopy(unfolded.model, unfolded.model.size());
  TrainOptions t;
  t.stats_mode = momentum < 0 ? StatsMode::kCumulativeAverage : StatsMode::kMomentum;
  t.bn_momentum = momentum < 0 ? 0.1f : momentum;
  t.trainable = Trainable::kBatchNorm;
  std::string log;
  const Options o = CollectingOptions(&log);
  size_t arena = 0;
  Trainer* trainer = nullptr;
  if (RequiredTrainingArenaBytes(bytes.get(), unfolded.model.size(), t, &arena, o) != Status::kOk) {
    *error = "calibration model rejected:" + log;
    return false;
  }
  AlignedBuffer arena_buf = AlignedCopy({}, arena);
  if (Trainer::Create(bytes.get(), unfolded.model.size(), arena_buf.get(), arena, t, o, &trainer) !=
      Status::kOk) {
    *error = "calibration model rejected:" + log;
    return false;
  }
  const size_t sample = trainer->sample_elems(), per_batch = sample * trainer->batch_size();
  if (data == nullptr || elems % sample != 0 || elems / sample < trainer->batch_size()) {
    *error = "needs float32 samples of " + std::to_string(sample) +
             " values, at least one batch of " + std::to_string(trainer->batch_size());
    return false;
  }
  trainer->ResetStatistics();
  const size_t batches = elems / per_batch;
  for (size_t b = 0; b < batches; ++b) {
    if (trainer->AdaptStatistics(data + b * per_batch) != Status::kOk) {
      *error = "calibration forward failed:" + log;
      return false;
    }
  }
  int statistics = 0;
  for (size_t i = 0; i < trainer->num_parameters(); ++i) {
    const ParameterView p = trainer->parameter(i);
    if (p.trainable) continue;  // running statistics only
    if (!SetInitializer(model, p.name, p.data, p.elems)) {
      *error = std::string("BatchNorm statistic '") + p.name +
               "' is not an initializer of the ONNX graph";
      return false;
    }
    ++statistics;
  }
  report->batches = batches;
  report->samples_used = batches * trainer->batch_size();
  report->batchnorms = statistics / 2;
  return true;
}

}  // namespace edgefold::compiler
