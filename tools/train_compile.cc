#include "train_compile.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <map>

#include "edgefold/model_generated.h"
#include "file_io.h"
#include "npy.h"

namespace edgefold::tools {
namespace {

const onnx::ValueInfoProto* GraphInput(const onnx::ModelProto& m) {
  for (const auto& in : m.graph().input()) {
    bool is_initializer = false;
    for (const auto& init : m.graph().initializer()) is_initializer |= init.name() == in.name();
    if (!is_initializer) return &in;
  }
  return nullptr;
}

void CollectLog(void* user, const char* message) {
  *static_cast<std::string*>(user) += std::string("\n  ") + message;
}

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

bool LoadOnnx(const std::string& path, onnx::ModelProto* model, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in || !model->ParseFromIstream(&in)) {
    *error = path + ": not a readable ONNX model";
    return false;
  }
  return true;
}

bool ParseTrainable(const std::string& text, Trainable* out) {
  if (text == "bn") *out = Trainable::kBatchNorm;
  else if (text == "bn+head") *out = Trainable::kBatchNormAndHead;
  else if (text == "all") *out = Trainable::kAll;
  else return false;
  return true;
}

bool ConfigureTrainingCompile(onnx::ModelProto* model, int batch,
                              compiler::CompileOptions* options, std::string* error) {
  const onnx::ValueInfoProto* input = GraphInput(*model);
  if (input == nullptr || !input->type().has_tensor_type()) {
    *error = "the model has no tensor graph input";
    return false;
  }
  std::vector<int64_t> dims;
  for (const auto& d : input->type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : 1);
  if (dims.empty()) {
    *error = "graph input '" + input->name() + "' has no batch dimension";
    return false;
  }
  if (options->input_shapes.count(input->name())) dims = options->input_shapes[input->name()];
  dims[0] = batch;
  options->input_shapes[input->name()] = dims;
  model->mutable_graph()->clear_value_info();
  for (auto& out : *model->mutable_graph()->mutable_output()) {
    auto* shape = out.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() > 0) shape->mutable_dim(0)->set_dim_param("batch");   // inferred anew
  }
  options->fold_batchnorm = false;
  options->fuse_activations = false;   // fused HardSwish has no gradient from its output
  options->winograd = false;           // the trainer reads and refolds plain [Cout, Cin, kh, kw] weights
  options->verify = false;
  return true;
}

bool AddTrainingSection(std::vector<uint8_t>* efb, Trainable trainable, std::string* error) {
  auto model = fb::UnPackModel(efb->data());
  auto section = std::make_unique<fb::TrainingSectionT>();
  const auto& input = model->tensors[model->inputs.at(0)];
  section->batch_size = input->shape.empty() ? 1 : input->shape[0];
  for (size_t i = 0; i < model->operators.size(); ++i) {
    const auto& op = model->operators[i];
    if (op->type != fb::OpType::BatchNorm) continue;
    const auto* o = op->options.AsBatchNormOptions();
    fb::BatchNormTrainStateT bn;
    bn.op = static_cast<int32_t>(i);
    bn.gamma = op->inputs[1];
    bn.beta = op->inputs[2];
    bn.running_mean = op->inputs[3];
    bn.running_var = op->inputs[4];
    bn.epsilon = o->epsilon;
    bn.momentum = o->momentum;
    section->batchnorms.push_back(std::make_unique<fb::BatchNormTrainStateT>(bn));
  }
  // The trainer is the authority on what is trainable and how much memory it needs.
  AlignedBuffer bytes = AllocateAligned(efb->size());
  std::memcpy(bytes.data.get(), efb->data(), efb->size());
  TrainOptions t;
  t.trainable = trainable;
  size_t arena = 0;
  std::string log;
  Options o;
  o.log = CollectLog;
  o.log_user = &log;
  if (RequiredTrainingArenaBytes(bytes.data.get(), efb->size(), t, &arena, o) != Status::kOk) {
    *error = "cannot size the training arena:" + log;
    return false;
  }
  AlignedBuffer arena_buf = AllocateAligned(arena);
  Trainer* trainer = nullptr;
  if (Trainer::Create(bytes.data.get(), efb->size(), arena_buf.data.get(), arena, t, o, &trainer) != Status::kOk) {
    *error = "the model cannot be trained:" + log;
    return false;
  }
  for (size_t i = 0; i < trainer->num_parameters(); ++i)
    if (trainer->parameter(i).trainable) section->trainable.push_back(trainer->parameter(i).tensor);
  section->arena_bytes = arena;
  model->training = std::move(section);
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  efb->assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  return true;
}

bool CalibrateBatchNorm(onnx::ModelProto* model, const compiler::CompileOptions& base,
                        const std::string& data_npy, int batch, float momentum,
                        CalibrationReport* report, std::string* error) {
  compiler::CompileOptions options = base;
  if (!ConfigureTrainingCompile(model, batch, &options, error)) return false;
  const compiler::CompileResult unfolded = compiler::CompileModel(*model, options);
  if (!unfolded.ok) {
    *error = unfolded.error;
    return false;
  }
  NpyArray data;
  if (!ReadNpy(data_npy, &data, error)) return false;
  AlignedBuffer bytes = AllocateAligned(unfolded.model.size());
  std::memcpy(bytes.data.get(), unfolded.model.data(), unfolded.model.size());
  TrainOptions t;
  t.stats_mode = momentum < 0 ? StatsMode::kCumulativeAverage : StatsMode::kMomentum;
  t.bn_momentum = momentum < 0 ? 0.1f : momentum;
  std::string log;
  Options o;
  o.log = CollectLog;
  o.log_user = &log;
  size_t arena = 0;
  Trainer* trainer = nullptr;
  if (RequiredTrainingArenaBytes(bytes.data.get(), unfolded.model.size(), t, &arena, o) != Status::kOk) {
    *error = "calibration model rejected:" + log;
    return false;
  }
  AlignedBuffer arena_buf = AllocateAligned(arena);
  if (Trainer::Create(bytes.data.get(), unfolded.model.size(), arena_buf.data.get(), arena, t, o, &trainer) != Status::kOk) {
    *error = "calibration model rejected:" + log;
    return false;
  }
  const size_t sample = trainer->sample_elems(), per_batch = sample * trainer->batch_size();
  if (data.dtype != NpyDType::kFloat32 || data.shape.empty() || data.elems() % sample != 0 ||
      data.elems() / sample < trainer->batch_size()) {
    *error = data_npy + ": needs float32 samples of " + std::to_string(sample) +
             " values, at least one batch of " + std::to_string(trainer->batch_size());
    return false;
  }
  trainer->ResetStatistics();
  const size_t batches = data.elems() / per_batch;
  for (size_t b = 0; b < batches; ++b) {
    if (trainer->AdaptStatistics(data.f32.data() + b * per_batch) != Status::kOk) {
      *error = "calibration forward failed:" + log;
      return false;
    }
  }
  for (size_t i = 0; i < trainer->num_parameters(); ++i) {
    const ParameterView p = trainer->parameter(i);
    if (p.trainable) continue;   // running statistics only
    if (!SetInitializer(model, p.name, p.data, p.elems)) {
      *error = std::string("BatchNorm statistic '") + p.name + "' is not an initializer of the ONNX graph";
      return false;
    }
  }
  report->batches = batches;
  report->samples_used = batches * trainer->batch_size();
  for (size_t i = 0; i < trainer->num_parameters(); ++i) report->batchnorms += trainer->parameter(i).trainable ? 0 : 1;
  report->batchnorms /= 2;
  return true;
}

}  // namespace edgefold::tools

namespace edgefold::tools {

compiler::CompileResult CompileWithTrainingFlags(const std::string& onnx_path,
                                                 compiler::CompileOptions options,
                                                 const TrainingCompileFlags& flags) {
  compiler::CompileResult result;
  onnx::ModelProto model;
  if (!LoadOnnx(onnx_path, &model, &result.error)) return result;
  if (!flags.calibrate_npy.empty()) {
    CalibrationReport report;
    if (!CalibrateBatchNorm(&model, options, flags.calibrate_npy, flags.calibrate_batch,
                            flags.calibrate_momentum, &report, &result.error)) {
      result.error = "calibration: " + result.error;
      return result;
    }
    std::printf("calibrated %d BatchNorm layers over %zu batches (%zu samples, %s)\n", report.batchnorms,
                report.batches, report.samples_used,
                flags.calibrate_momentum < 0 ? "cumulative average, unbiased variance" : "moving average");
  }
  if (flags.train && !ConfigureTrainingCompile(&model, flags.batch, &options, &result.error)) return result;
  result = compiler::CompileModel(model, options);
  if (result.ok && flags.train) {
    if (!AddTrainingSection(&result.model, flags.trainable, &result.error)) {
      result.ok = false;
      return result;
    }
    const auto* m = fb::GetModel(result.model.data());
    std::printf("training: batch %d, %u BatchNorm layers kept, %u trainable tensors, training arena %llu bytes\n",
                m->training()->batch_size(), m->training()->batchnorms()->size(), m->training()->trainable()->size(),
                static_cast<unsigned long long>(m->training()->arena_bytes()));
  }
  return result;
}

}  // namespace edgefold::tools
