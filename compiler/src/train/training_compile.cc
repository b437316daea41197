// compile --train: the graph kept trainable (BatchNorm as its own op, activations fused only
// into BN, plain conv weights), the training batch fixed on the input, compiled once, then
// written again with its TrainingSection (training_section.h).
#include <onnx/onnx_pb.h>

#include "compile_lowered.h"
#include "edgefold_compiler/training.h"
#include "train/aligned_model.h"
#include "train/new_classes.h"
#include "train/training_section.h"
#include "write/section_writer.h"

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
  if (name == "bn")
    *out = TrainableSet::kBatchNorm;
  else if (name == "bn+head")
    *out = TrainableSet::kBatchNormAndHead;
  else if (name == "all")
    *out = TrainableSet::kAll;
  else
    return false;
  return true;
}

const char* TrainableSetName(TrainableSet set) {
  switch (set) {
    case TrainableSet::kBatchNorm:
      return "bn";
    case TrainableSet::kBatchNormAndHead:
      return "bn+head";
    case TrainableSet::kAll:
      return "all";
  }
  return "unknown";
}

bool ConfigureTrainingCompile(onnx::ModelProto* model, int batch, CompileOptions* options,
                              std::string* error) {
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
  for (const auto& d : input->type().tensor_type().shape().dim())
    dims.push_back(d.has_dim_value() ? d.dim_value() : 1);
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
  options->fuse_activations = false;  // fused HardSwish has no gradient from its output, but
  options->fuse_activations_into_batchnorm = true;  // after a BN it follows from the saved x̂
  options->winograd = false;  // the trainer reads and refolds plain [Cout, Cin, kh, kw] weights
  options->transposed_weights = false;
  options->verify = false;
  options->share_views =
      false;  // the trainer re-points tensors (recompute): each keeps its own bytes
  return true;
}

namespace {

// The graph as compiled for training (--new-classes appended) and the compile options for it.
bool TrainableGraph(const onnx::ModelProto& model, const TrainingOptions& training,
                    onnx::ModelProto* trainable, CompileOptions* options, std::string* head,
                    std::string* error) {
  *trainable = model;
  if (training.batch < 1 || training.inference_batch < 1 ||
      training.batch % training.inference_batch != 0) {
    *error = "the training batch (" + std::to_string(training.batch) +
             ") must be a multiple of the "
             "inference batch (" +
             std::to_string(training.inference_batch) + ")";
    return false;
  }
  if (training.new_classes > 0) {
    if (training.trainable == TrainableSet::kBatchNorm) {
      *error = "--new-classes needs the head trained: --trainable bn+head or all";
      return false;
    }
    if (!AppendClasses(trainable, training.new_classes, head, error)) return false;
  }
  return ConfigureTrainingCompile(trainable, training.inference_batch, options, error);
}

}  // namespace

TrainingCompileResult CompileForTraining(const onnx::ModelProto& model, CompileOptions options,
                                         const TrainingOptions& training) {
  TrainingCompileResult out;
  onnx::ModelProto trainable;
  std::string head;
  if (!TrainableGraph(model, training, &trainable, &options, &head, &out.compiled.error))
    return out;
  LoweredModelWriter writer;
  out.compiled = CompileModelLowered(trainable, options, writer.lowered());
  if (!out.compiled.ok) return out;
  // The same lowered model written again with its training section, one writer pass each.
  const SectionWriter write = [&writer](const TrainingSectionData& section) {
    return writer.Write(section);
  };
  bool ok = false;
  try {
    ok = BuildTrainingSection(writer.Outline(), training, write, &out.compiled.model, &out.training,
                              &out.compiled.error);
  } catch (const std::exception& e) {
    out.compiled.error = e.what();
  }
  if (!ok) {
    out.compiled.ok = false;
    out.compiled.model.clear();
  }
  out.training.new_classes_head = head;
  return out;
}

bool MeasureDeployedArena(const onnx::ModelProto& model, CompileOptions options,
                          const TrainingOptions& training, TrainingReport* report) {
  onnx::ModelProto trainable;
  CompileOptions training_options = options;
  std::string head, error;
  if (!TrainableGraph(model, training, &trainable, &training_options, &head, &error)) return false;
  options.input_shapes = training_options.input_shapes;  // the same input shapes, every fold
  options.verify = false;
  const CompileResult deployed = CompileModel(trainable, options);
  if (!deployed.ok) return false;
  size_t bytes = 0;
  AlignedBuffer efb = AlignedCopy(deployed.model, deployed.model.size());
  if (RequiredArenaBytes(efb.get(), deployed.model.size(), &bytes) != Status::kOk) return false;
  report->deployed_arena_bytes = bytes;
  report->deployed_planned_bytes = deployed.report.arena_bytes;
  return true;
}

}  // namespace edgefold::compiler
