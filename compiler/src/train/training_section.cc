// The TrainingSection of a model compiled for training: each BatchNorm's tensors, the tensors
// training updates (a preset, optionally cut to the last layers: a sparse update), and every
// training buffer's offset, planned by lifetime. The runtime trainer is the authority on which
// buffers a step needs (ForEachTrainingBuffer); the compiler's planner places them.
#include <cstdint>
#include <cstdio>
#include <string>

#include "edgefold/trainer.h"
#include "edgefold/model_generated.h"
#include "edgefold_compiler/training.h"
#include "train/aligned_model.h"

namespace edgefold::compiler {
namespace {

Trainable RuntimeSet(TrainableSet set) {
  switch (set) {
    case TrainableSet::kBatchNorm: return Trainable::kBatchNorm;
    case TrainableSet::kBatchNormAndHead: return Trainable::kBatchNormAndHead;
    case TrainableSet::kAll: return Trainable::kAll;
  }
  return Trainable::kBatchNorm;
}

std::vector<uint8_t> PackModel(const fb::ModelT& model) {
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, &model));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// A trainer on `efb` under `train`: the tensors it trains, or false with the runtime's log.
bool ListTrainable(const std::vector<uint8_t>& efb, const TrainOptions& train, std::vector<int32_t>* out,
                   size_t* arena_bytes, std::string* log) {
  const Options o = CollectingOptions(log);
  AlignedBuffer model = AlignedCopy(efb, efb.size());
  size_t arena = 0;
  if (RequiredTrainingArenaBytes(model.get(), efb.size(), train, &arena, o) != Status::kOk) return false;
  AlignedBuffer arena_buf = AlignedCopy({}, arena);
  Trainer* trainer = nullptr;
  if (Trainer::Create(model.get(), efb.size(), arena_buf.get(), arena, train, o, &trainer) != Status::kOk)
    return false;
  out->clear();
  for (size_t i = 0; i < trainer->num_parameters(); ++i)
    if (trainer->parameter(i).trainable) out->push_back(trainer->parameter(i).tensor);
  if (arena_bytes != nullptr) *arena_bytes = arena;
  return true;
}

// The first operator a sparse update trains: named by --train-from (node or output name), or
// the K-th BatchNorm from the end; 0 when the whole network trains, -1 on a bad request.
int FirstTrainedOp(const fb::ModelT& model, const TrainingOptions& t, std::string* error) {
  if (!t.train_from.empty() && t.trainable_last > 0) {
    *error = "--train-from and --trainable-last both choose where training starts: give one";
    return -1;
  }
  if (!t.train_from.empty()) {
    for (size_t i = 0; i < model.operators.size(); ++i) {
      const auto& op = *model.operators[i];
      const bool output = !op.outputs.empty() && model.tensors[op.outputs[0]]->name == t.train_from;
      if (op.name == t.train_from || output) return static_cast<int>(i);
    }
    *error = "--train-from '" + t.train_from + "': no node or tensor of that name in the compiled "
             "graph (BatchNorm, Conv and Gemm nodes keep their ONNX names under --train)";
    return -1;
  }
  if (t.trainable_last <= 0) return 0;
  std::vector<int> bns;
  for (size_t i = 0; i < model.operators.size(); ++i)
    if (model.operators[i]->type == fb::OpType::BatchNorm) bns.push_back(static_cast<int>(i));
  if (static_cast<size_t>(t.trainable_last) > bns.size()) {
    *error = "--trainable-last " + std::to_string(t.trainable_last) + ": the model has " +
             std::to_string(bns.size()) + " BatchNorm layers";
    return -1;
  }
  return bns[bns.size() - static_cast<size_t>(t.trainable_last)];
}

// Keeps the tensors whose reading op is at or after `first_op`.
std::vector<int32_t> TrainedFrom(const fb::ModelT& model, const std::vector<int32_t>& tensors, int first_op) {
  std::vector<int32_t> kept;
  for (int32_t t : tensors) {
    bool after = false;
    for (size_t i = static_cast<size_t>(first_op); i < model.operators.size() && !after; ++i)
      for (int32_t in : model.operators[i]->inputs) after |= in == t;
    if (after) kept.push_back(t);
  }
  return kept;
}

// Lists the buffers a step of `model` needs (the runtime trainer is the authority), plans them
// by lifetime and records the offsets in the model's training section; `efb` is repacked.
bool PlanTrainingBuffers(fb::ModelT* model, std::vector<uint8_t>* efb, BufferPlan* plan, std::string* error) {
  model->training->buffer_offsets.clear();
  *efb = PackModel(*model);
  std::string log;
  const Options o = CollectingOptions(&log);
  std::vector<BufferLifetime> buffers;
  AlignedBuffer bytes = AlignedCopy(*efb, efb->size());
  auto collect = [](void* user, const TrainingBuffer& b) {
    static_cast<std::vector<BufferLifetime>*>(user)->push_back(
        {b.bytes, b.first_step, b.last_step});
  };
  if (ForEachTrainingBuffer(bytes.get(), efb->size(), TrainOptions(), collect, &buffers, o) != Status::kOk) {
    *error = "cannot list the training buffers:" + log;
    return false;
  }
  *plan = PlanBuffers(buffers);
  model->training->buffer_offsets = plan->offsets;
  model->training->planned_bytes = plan->arena_bytes;
  model->training->lower_bound = plan->lower_bound;
  *efb = PackModel(*model);
  return true;
}

// --recompute: splits the backward [first op reading a trained tensor, end) into K segments of
// equal op count for K = 2 … 16 and keeps the split with the smallest training arena (none, if
// no split beats keeping every value).
bool ChooseRecomputeSegments(fb::ModelT* model, std::vector<uint8_t>* efb, int first_op,
                             const std::vector<int32_t>& trainable, BufferPlan* plan, std::string* error) {
  const int n = static_cast<int>(model->operators.size());
  int first_backward = n;
  for (int i = first_op; i < n && first_backward == n; ++i)
    for (int32_t in : model->operators[static_cast<size_t>(i)]->inputs)
      for (int32_t t : trainable)
        if (in == t) first_backward = i;
  // Compared by the whole training arena: the planned buffers and the trainer's records (a
  // split adds the pointers it switches).
  const auto whole_arena = [](const std::vector<uint8_t>& bytes) {
    AlignedBuffer aligned = AlignedCopy(bytes, bytes.size());
    size_t arena = SIZE_MAX;
    if (RequiredTrainingArenaBytes(aligned.get(), bytes.size(), TrainOptions(), &arena) != Status::kOk) return SIZE_MAX;
    return arena;
  };
  std::vector<int32_t> best;
  size_t best_arena = whole_arena(*efb);
  for (int k = 2; k <= 16 && k <= n - first_backward; ++k) {
    std::vector<int32_t> starts;
    for (int j = 1; j < k; ++j) starts.push_back(first_backward + (n - first_backward) * j / k);
    model->training->recompute_segments = starts;
    BufferPlan candidate;
    if (!PlanTrainingBuffers(model, efb, &candidate, error)) return false;
    const size_t arena = whole_arena(*efb);
    if (arena < best_arena) {
      best = starts;
      best_arena = arena;
    }
  }
  model->training->recompute_segments = best;
  return PlanTrainingBuffers(model, efb, plan, error);
}

}  // namespace

bool AddTrainingSection(std::vector<uint8_t>* efb, const TrainingOptions& training, TrainingReport* report,
                        std::string* error) {
  auto model = fb::UnPackModel(efb->data());
  auto section = std::make_unique<fb::TrainingSectionT>();
  const auto& input = model->tensors[model->inputs.at(0)];
  const int graph_batch = input->shape.empty() ? 1 : input->shape[0];
  section->batch_size = training.batch > 0 ? training.batch : graph_batch;
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
  const int first_op = FirstTrainedOp(*model, training, error);
  if (first_op < 0) return false;
  std::string log;
  TrainOptions preset;
  preset.trainable = RuntimeSet(training.trainable);
  std::vector<int32_t> trainable;
  if (!ListTrainable(*efb, preset, &trainable, nullptr, &log)) {
    *error = "the model cannot be trained:" + log;
    return false;
  }
  trainable = TrainedFrom(*model, trainable, first_op);
  if (trainable.empty()) {
    *error = "nothing to train from operator '" + model->operators[static_cast<size_t>(first_op)]->name +
             "' on under --trainable " + TrainableSetName(training.trainable);
    return false;
  }
  section->trainable = trainable;
  section->refold_weights = training.refold_weights;
  section->frozen_statistics = training.frozen_statistics;
  section->new_classes = training.new_classes;
  section->saved_precision = training.saved_precision == TrainingOptions::Saved::kFloat16   ? fb::SavedPrecision::Float16
                             : training.saved_precision == TrainingOptions::Saved::kBFloat16 ? fb::SavedPrecision::BFloat16
                                                                                            : fb::SavedPrecision::Float32;
  model->training = std::move(section);
  BufferPlan plan;
  if (!PlanTrainingBuffers(model.get(), efb, &plan, error)) return false;
  if (training.recompute && !ChooseRecomputeSegments(model.get(), efb, first_op, trainable, &plan, error))
    return false;

  std::vector<int32_t> check;   // the planned layout must create a trainer with the same set
  size_t arena = 0;
  if (!ListTrainable(*efb, TrainOptions(), &check, &arena, &log) || check != trainable) {
    *error = "the planned training layout does not create a trainer:" + log;
    return false;
  }
  model->training->arena_bytes = arena;
  *efb = PackModel(*model);

  if (report != nullptr) {
    report->batch = model->training->batch_size;
    report->inference_batch = graph_batch;
    report->batchnorms_kept = static_cast<int>(model->training->batchnorms.size());
    report->trainable_tensors = static_cast<int>(trainable.size());
    for (const auto& op : model->operators) {   // where the backward stops
      bool trained = false;
      for (int32_t in : op->inputs)
        for (int32_t t : trainable) trained |= in == t;
      if (trained) { report->first_trained_op = op->name; break; }
    }
    report->arena_bytes = arena;
    report->recompute_segments = static_cast<int>(model->training->recompute_segments.size()) +
                                 (model->training->recompute_segments.empty() ? 0 : 1);
    report->lower_bound = plan.lower_bound;
    report->planned_bytes = plan.arena_bytes;
    AlignedBuffer final_bytes = AlignedCopy(*efb, efb->size());
    size_t inference = 0;
    if (RequiredArenaBytes(final_bytes.get(), efb->size(), &inference) == Status::kOk)
      report->inference_arena_bytes = inference;
  }
  return true;
}

}  // namespace edgefold::compiler
