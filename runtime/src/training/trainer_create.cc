// What Create checks before and after placing a trainer, and the calls that size a trainer
// without creating one (ForEachTrainingBuffer, RequiredTrainingArenaBytes).
#include "training/trainer_create.h"

#include "base/size_math.h"
#include "interpreter/graph_prepare.h"
#include "model/training_section_reader.h"
#include "training/backward.h"
#include "training/train_batch.h"
#include "training/trainer_buffers.h"
#include "training/trainer_plan.h"

namespace edgefold {
namespace internal {

namespace {

// One graph input and one output of logits [N, classes] (a final Softmax's input), something to
// train, a backward for every op, BatchNorm γ and β constants: what a training step needs.
Status CheckTrainableGraph(const GraphView& g, Trainable trainable, ErrorReporter& errors) {
  const ModelSummary& s = g.summary();
  if (s.num_inputs != 1 || s.num_outputs != 1) {
    errors.Report("training needs exactly one graph input and one output (logits)");
    return Status::kInvalidModel;
  }
  int32_t logits = -1, skipped_op = -1;
  FindLogits(g, &logits, &skipped_op);
  const TensorInfo x = g.tensor(static_cast<size_t>(s.inputs[0]));
  const TensorInfo z = g.tensor(static_cast<size_t>(logits));
  const size_t batch = (x.rank >= 1) ? static_cast<size_t>(x.shape[0]) : 1;
  if (z.rank < 1 || static_cast<size_t>(z.shape[0]) != batch) {
    errors.Report("output '%s' must be [N, classes] with N = %zu (the input's batch)", z.name,
                  batch);
    return Status::kShapeMismatch;
  }
  const int32_t head = FindHeadOp(g);
  size_t trained = 0;
  for (size_t i = 0; i < s.num_tensors; ++i)
    trained += g.tensor(i).is_constant &&
               RoleOf(g, static_cast<int32_t>(i), trainable, head) == ParamRole::kTrainable;
  if (trained == 0) {
    errors.Report(
        "nothing to train: the model has no BatchNorm (folded away?) and no trainable "
        "weights under this trainable set; compile it with 'edgefold compile --train'");
    return Status::kInvalidModel;
  }
  for (size_t i = 0; i < s.num_ops; ++i) {
    const OpDesc op = g.op(i);
    if (const char* why = BackwardUnsupportedReason(op, g)) {
      errors.Report("op '%s' (%s): cannot train through it: %s", op.name, OpKindName(op.kind), why);
      return Status::kUnsupportedOp;
    }
    if (op.kind == OpKind::kBatchNorm &&
        (!g.tensor(static_cast<size_t>(op.inputs[1])).is_constant ||
         !g.tensor(static_cast<size_t>(op.inputs[2])).is_constant)) {
      errors.Report("op '%s': BatchNorm scale and bias must be constants to be trained", op.name);
      return Status::kInvalidModel;
    }
  }
  return Status::kOk;
}

}  // namespace

Status CheckTrainingModel(const uint8_t* model, const ModelSummary& summary,
                          const TrainOptions& train, ErrorReporter& errors) {
  const GraphView g(model, summary);
  EDGEFOLD_RETURN_IF_ERROR(CheckTrainableAgrees(g, train.trainable, errors));
  EDGEFOLD_RETURN_IF_ERROR(CheckBatchScalable(g, errors));
  return CheckTrainableGraph(g, train.trainable, errors);
}

void ReadTrainingShape(Trainer::State& s) {
  s.input = s.summary.inputs[0];
  s.logits = s.summary.outputs[0];
  const OpDesc& last = s.ops[s.summary.num_ops - 1];
  if (last.kind == OpKind::kSoftmax && last.outputs[0] == s.logits) s.logits = last.inputs[0];
  const TensorInfo& x = s.tensors[s.input];
  s.batch = (x.rank >= 1) ? static_cast<size_t>(x.shape[0]) : 1;
  s.classes = s.tensors[s.logits].elems / s.batch;
  s.frozen_stats = s.summary.frozen_statistics;
  s.chunks = s.frozen_stats ? s.summary.training_batch_scale : 1;
}

}  // namespace internal

using internal::ModelSummary;

Status ForEachTrainingBuffer(const uint8_t* model, size_t model_bytes, const TrainOptions& train,
                             TrainingBufferFn visit, void* user, const Options& options) {
  if (visit == nullptr) return Status::kInvalidArgument;
  internal::ErrorReporter errors(options.log, options.log_user);
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckModel(model, model_bytes, errors, &summary));
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckTrainingSection(model, &summary, errors));
  EDGEFOLD_RETURN_IF_ERROR(
      internal::CheckBatchScalable(internal::GraphView(model, summary), errors));
  internal::WithBufferContext(
      model, summary, train.trainable,
      [&](const internal::BufferContext& c) { internal::ForEachTrainerBuffer(c, visit, user); });
  return Status::kOk;
}

Status RequiredTrainingArenaBytes(const uint8_t* model, size_t model_bytes,
                                  const TrainOptions& train, size_t* arena_bytes,
                                  const Options& options) {
  if (arena_bytes == nullptr) return Status::kInvalidArgument;
  internal::ErrorReporter errors(options.log, options.log_user);
  ModelSummary summary;
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckModel(model, model_bytes, errors, &summary));
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckTrainingSection(model, &summary, errors));
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckTrainingModel(model, summary, train, errors));
  internal::TrainerLayout layout;
  EDGEFOLD_RETURN_IF_ERROR(internal::PlanTrainer(model, summary, train, errors, &layout));
  const size_t needed = AddSat(layout.total_bytes, internal::kTrainerHandleBytes);
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckAddressable(needed, "training arena", errors));
  *arena_bytes = needed;
  return Status::kOk;
}

const char* TrainableName(Trainable trainable) {
  switch (trainable) {
    case Trainable::kBatchNorm:
      return "bn";
    case Trainable::kBatchNormAndHead:
      return "bn+head";
    case Trainable::kAll:
      return "all";
    case Trainable::kModel:
      return "model";
  }
  return "unknown";
}

}  // namespace edgefold
