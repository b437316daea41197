#include "train/training_section.h"

#include "edgefold/trainer.h"
#include "train/aligned_model.h"
#include "train/trainable_set.h"
#include "write/section_writer.h"

namespace edgefold::compiler {
namespace {

// The settings TrainingOptions gives, and each BatchNorm's tensors; nothing trainable or
// planned yet.
TrainingSectionData SectionSettings(const GraphOutline& g, const TrainingOptions& training,
                                    int graph_batch) {
  TrainingSectionData s;
  s.batch_size = training.batch > 0 ? training.batch : graph_batch;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const GraphOutline::Op& op = g.ops[i];
    if (op.role != GraphOutline::OpRole::kBatchNorm || op.inputs.size() < 5) continue;
    s.batchnorms.push_back({static_cast<int32_t>(i), op.inputs[1], op.inputs[2], op.inputs[3],
                            op.inputs[4], op.bn_epsilon, op.bn_momentum});
  }
  s.refold_weights = training.refold_weights;
  s.frozen_statistics = training.frozen_statistics;
  s.new_classes = training.new_classes;
  s.saved_precision = training.saved_precision == TrainingOptions::Saved::kFloat16
                          ? TrainingSectionData::Saved::kFloat16
                      : training.saved_precision == TrainingOptions::Saved::kBFloat16
                          ? TrainingSectionData::Saved::kBFloat16
                          : TrainingSectionData::Saved::kFloat32;
  return s;
}

// Lists the buffers a step of the model needs, each named by role (the runtime trainer is the
// authority), plans them by lifetime and records each offset with its role in `section`.
bool PlanTrainingBuffers(const SectionWriter& write, TrainingSectionData* section, BufferPlan* plan,
                         std::string* error) {
  section->buffers.clear();
  const std::vector<uint8_t> efb = write(*section);
  std::string log;
  const Options o = CollectingOptions(&log);
  std::vector<TrainingBuffer> buffers;
  AlignedBuffer bytes = AlignedCopy(efb, efb.size());
  auto collect = [](void* user, const TrainingBuffer& b) {
    static_cast<std::vector<TrainingBuffer>*>(user)->push_back(b);
  };
  if (ForEachTrainingBuffer(bytes.get(), efb.size(), TrainOptions(), collect, &buffers, o) !=
      Status::kOk) {
    *error = "cannot list the training buffers:" + log;
    return false;
  }
  std::vector<BufferLifetime> lifetimes;
  for (const TrainingBuffer& b : buffers) lifetimes.push_back({b.bytes, b.first_step, b.last_step});
  *plan = PlanBuffers(lifetimes);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const TrainingBuffer& b = buffers[i];
    section->buffers.push_back(
        {static_cast<uint8_t>(b.kind), b.owner, b.index, b.life, plan->offsets[i], b.bytes});
  }
  section->planned_bytes = plan->arena_bytes;
  section->lower_bound = plan->lower_bound;
  return true;
}

// The whole training arena of `efb` (planned buffers and the trainer's records), or SIZE_MAX
// with the runtime's messages in `log`.
size_t TrainingArenaBytes(const std::vector<uint8_t>& efb, std::string* log) {
  AlignedBuffer aligned = AlignedCopy(efb, efb.size());
  size_t arena = SIZE_MAX;
  if (RequiredTrainingArenaBytes(aligned.get(), efb.size(), TrainOptions(), &arena,
                                 CollectingOptions(log)) != Status::kOk)
    return SIZE_MAX;
  return arena;
}

// --recompute: splits the backward [first op reading a trained tensor, end) into K segments of
// equal op count for K = 2 … 16 and keeps the split with the smallest training arena (none, if
// no split beats keeping every value).
bool ChooseRecomputeSegments(const GraphOutline& g, const SectionWriter& write, int first_op,
                             TrainingSectionData* section, BufferPlan* plan, std::string* error) {
  const int n = static_cast<int>(g.ops.size());
  int first_backward = n;
  for (int i = first_op; i < n && first_backward == n; ++i)
    for (int32_t in : g.ops[static_cast<size_t>(i)].inputs)
      for (int32_t t : section->trainable)
        if (in == t) first_backward = i;
  std::string log;
  std::vector<int32_t> best;
  size_t best_arena = TrainingArenaBytes(write(*section), &log);
  for (int k = 2; k <= 16 && k <= n - first_backward; ++k) {
    std::vector<int32_t> starts;
    for (int j = 1; j < k; ++j) starts.push_back(first_backward + (n - first_backward) * j / k);
    section->recompute_segments = starts;
    BufferPlan candidate;
    if (!PlanTrainingBuffers(write, section, &candidate, error)) return false;
    const size_t arena = TrainingArenaBytes(write(*section), &log);
    if (arena < best_arena) {
      best = starts;
      best_arena = arena;
    }
  }
  section->recompute_segments = best;
  return PlanTrainingBuffers(write, section, plan, error);
}

void FillReport(const GraphOutline& g, const TrainingSectionData& s, const BufferPlan& plan,
                int graph_batch, const std::vector<uint8_t>& efb, TrainingReport* report) {
  report->batch = s.batch_size;
  report->inference_batch = graph_batch;
  report->batchnorms_kept = static_cast<int>(s.batchnorms.size());
  report->trainable_tensors = static_cast<int>(s.trainable.size());
  for (const GraphOutline::Op& op : g.ops) {  // where the backward stops
    bool trained = false;
    for (int32_t in : op.inputs)
      for (int32_t t : s.trainable) trained |= in == t;
    if (trained) {
      report->first_trained_op = op.name;
      break;
    }
  }
  report->arena_bytes = s.arena_bytes;
  report->recompute_segments =
      s.recompute_segments.empty() ? 0 : static_cast<int>(s.recompute_segments.size()) + 1;
  report->lower_bound = plan.lower_bound;
  report->planned_bytes = plan.arena_bytes;
  AlignedBuffer bytes = AlignedCopy(efb, efb.size());
  size_t inference = 0;
  if (RequiredArenaBytes(bytes.get(), efb.size(), &inference) == Status::kOk)
    report->inference_arena_bytes = inference;
}

}  // namespace

bool BuildTrainingSection(const GraphOutline& g, const TrainingOptions& training,
                          const SectionWriter& write, std::vector<uint8_t>* efb,
                          TrainingReport* report, std::string* error) {
  if (g.inputs.empty()) {
    *error = "the model has no graph input";
    return false;
  }
  const auto& input_shape = g.tensors[static_cast<size_t>(g.inputs[0])].shape;
  const int graph_batch = input_shape.empty() ? 1 : static_cast<int>(input_shape[0]);
  TrainingSectionData section = SectionSettings(g, training, graph_batch);
  const int first_op = FirstTrainedOp(g, training, error);
  if (first_op < 0) return false;
  section.trainable = TrainedFrom(g, TrainableTensors(g, training.trainable), first_op);
  if (section.trainable.empty()) {
    *error = "nothing to train from operator '" + g.ops[static_cast<size_t>(first_op)].name +
             "' on under --trainable " + TrainableSetName(training.trainable);
    return false;
  }
  BufferPlan plan;
  if (!PlanTrainingBuffers(write, &section, &plan, error)) return false;
  if (training.recompute && !ChooseRecomputeSegments(g, write, first_op, &section, &plan, error))
    return false;
  // The runtime sizes the trainer on the written model: it refuses what it could not train (an
  // op without a backward, a graph that cannot run at the training batch), naming it.
  std::string log;
  const size_t arena = TrainingArenaBytes(write(section), &log);
  if (arena == SIZE_MAX) {
    *error = "the model cannot be trained:" + log;
    return false;
  }
  section.arena_bytes = arena;
  *efb = write(section);
  if (report != nullptr) FillReport(g, section, plan, graph_batch, *efb, report);
  return true;
}

bool AddTrainingSection(std::vector<uint8_t>* efb, const TrainingOptions& training,
                        TrainingReport* report, std::string* error) {
  try {
    const std::vector<uint8_t> compiled = *efb;
    const SectionWriter write = [&compiled](const TrainingSectionData& s) {
      return WithTrainingSection(compiled, s);
    };
    return BuildTrainingSection(OutlineOfEfb(compiled), training, write, efb, report, error);
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

}  // namespace edgefold::compiler
