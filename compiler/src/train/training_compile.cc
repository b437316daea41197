// compile --train: the graph kept trainable (BatchNorm as its own op, activations fused only
// into BN, plain conv weights), the training batch fixed on the input, then the TrainingSection.
#include <onnx/onnx_pb.h>

#include "edgefold_compiler/training.h"
#include "train/aligned_model.h"
#include "train/new_classes.h"

namespace edgefold::compiler {
namespace {

const onnx::ValueInfoProto* GraphInput(const onnx::ModelProto& m) {
  for (const auto& in : m.graph().input()) {
    bool is_initializer = false;
    for (const auto& init : m.graph().initializer()) is_initializer |= init.name() == in.name();
    if (!is_initializer) return &in;
  }
  return nullptr;
}

}  // namespace

bool ParseTrainableSet(const std::string& name, TrainableSet* out) {
  if (name == "bn") *out = TrainableSet::kBatchNorm;
  else if (name == "bn+head") *out = TrainableSet::kBatchNormAndHead;
  else if (name == "all") *out = TrainableSet::kAll;
  else return false;
  return true;
}

const char* TrainableSetName(TrainableSet set) {
  switch (set) {
    case TrainableSet::kBatchNorm: return "bn";
    case TrainableSet::kBatchNormAndHead: return "bn+head";
    case TrainableSet::kAll: return "all";
  }
  return "unknown";
}

bool ConfigureTrainingCompile(onnx::ModelProto* model, int batch, CompileOptions* options, std::string* error) {
  const onnx::ValueInfoProto* input = GraphInput(*model);
  if (input == nullptr || !input->type().has_tensor_type()) {
    *error = "the model has no tensor graph input";
    return false;
  }
  if (batch < 1) {
    *error = "the training batch must be at least 1";
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
  // Intermediate and output shapes were inferred for the exported batch: inferred anew.
  model->mutable_graph()->clear_value_info();
  for (auto& out : *model->mutable_graph()->mutable_output()) {
    auto* shape = out.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() > 0) shape->mutable_dim(0)->set_dim_param("batch");
  }
  options->fold_batchnorm = false;
  options->fuse_activations = false;   // fused HardSwish has no gradient from its output, but
  options->fuse_activations_into_batchnorm = true;   // after a BN it follows from the saved x̂
  options->winograd = false;           // the trainer reads and refolds plain [Cout, Cin, kh, kw] weights
  options->verify = false;
  options->share_views = false;        // the trainer re-points tensors (recompute): each keeps its own bytes
  return true;
}

TrainingCompileResult CompileForTraining(const onnx::ModelProto& model, CompileOptions options,
                                         const TrainingOptions& training) {
  TrainingCompileResult out;
  onnx::ModelProto trainable = model;
  if (training.batch < 1 || training.inference_batch < 1 || training.batch % training.inference_batch != 0) {
    out.compiled.error = "the training batch (" + std::to_string(training.batch) + ") must be a multiple of the "
                         "inference batch (" + std::to_string(training.inference_batch) + ")";
    return out;
  }
  if (training.new_classes > 0) {
    if (training.trainable == TrainableSet::kBatchNorm) {
      out.compiled.error = "--new-classes needs the head trained: --trainable bn+head or all";
      return out;
    }
    if (!AppendClasses(&trainable, training.new_classes, &out.training.new_classes_head, &out.compiled.error))
      return out;
  }
  CompileOptions deployed = options;
  if (!ConfigureTrainingCompile(&trainable, training.inference_batch, &options, &out.compiled.error)) return out;
  // The deployed model: what training is measured against (the same input shapes, every fold).
  deployed.input_shapes = options.input_shapes;
  deployed.verify = false;
  const CompileResult inference = CompileModel(trainable, deployed);
  if (inference.ok) {
    size_t bytes = 0;
    AlignedBuffer efb = AlignedCopy(inference.model, inference.model.size());
    if (RequiredArenaBytes(efb.get(), inference.model.size(), &bytes) == Status::kOk)
      out.training.deployed_arena_bytes = bytes;
    out.training.deployed_planned_bytes = inference.report.arena_bytes;
  }
  out.compiled = CompileModel(trainable, options);
  if (!out.compiled.ok) return out;
  const std::string head = out.training.new_classes_head;
  if (!AddTrainingSection(&out.compiled.model, training, &out.training, &out.compiled.error)) {
    out.compiled.ok = false;
    out.compiled.model.clear();
  }
  out.training.new_classes_head = head;
  return out;
}

}  // namespace edgefold::compiler
