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

Status CheckTrainingGraph(Trainer::State& s) {
  if (s.summary.num_inputs != 1 || s.summary.num_outputs != 1) {
    s.errors.Report("training needs exactly one graph input and one output (logits)");
    return Status::kInvalidModel;
  }
  s.input = s.summary.inputs[0];
  s.logits = s.summary.outputs[0];
  const OpDesc& last = s.ops[s.summary.num_ops - 1];
  if (last.kind == OpKind::kSoftmax && last.outputs[0] == s.logits) s.logits = last.inputs[0];
  const TensorInfo& x = s.tensors[s.input];
  const TensorInfo& z = s.tensors[s.logits];
  s.batch = (x.rank >= 1) ? static_cast<size_t>(x.shape[0]) : 1;
  if (z.rank < 1 || static_cast<size_t>(z.shape[0]) != s.batch) {
    s.errors.Report("output '%s' must be [N, classes] with N = %zu (the input's batch)", z.name, s.batch);
    return Status::kShapeMismatch;
  }
  s.classes = z.elems / s.batch;
  s.frozen_stats = s.summary.frozen_statistics;
  s.chunks = s.frozen_stats ? s.summary.training_batch_scale : 1;
  size_t trainable = 0;
  for (size_t p = 0; p < s.num_params; ++p) trainable += s.params[p].trainable ? 1 : 0;
  if (trainable == 0) {
    s.errors.Report("nothing to train: the model has no BatchNorm (folded away?) and no trainable "
                    "weights under this trainable set; compile it with 'edgefold compile --train'");
    return Status::kInvalidModel;
  }
  for (size_t i = 0; i < s.summary.num_ops; ++i) {
    const OpDesc& op = s.ops[i];
    if (const char* why = BackwardUnsupportedReason(op, s.tensors)) {
      s.errors.Report("op '%s' (%s): cannot train through it: %s", op.name, OpKindName(op.kind), why);
      return Status::kUnsupportedOp;
    }
    if (op.kind == OpKind::kBatchNorm && (!s.tensors[op.inputs[1]].is_constant || !s.tensors[op.inputs[2]].is_constant)) {
      s.errors.Report("op '%s': BatchNorm scale and bias must be constants to be trained", op.name);
      return Status::kInvalidModel;
    }
  }
  return Status::kOk;
}

Status CheckTrainingModel(const uint8_t* model, const ModelSummary& summary, const TrainOptions& train,
                          ErrorReporter& errors) {
  const GraphView g(model, summary);
  EDGEFOLD_RETURN_IF_ERROR(CheckTrainableAgrees(g, train.trainable, errors));
  return CheckBatchScalable(g, errors);
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
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckBatchScalable(internal::GraphView(model, summary), errors));
  internal::WithBufferContext(model, summary, train.trainable, [&](const internal::BufferContext& c) {
    internal::ForEachTrainerBuffer(c, visit, user);
  });
  return Status::kOk;
}

Status RequiredTrainingArenaBytes(const uint8_t* model, size_t model_bytes, const TrainOptions& train,
                                  size_t* arena_bytes, const Options& options) {
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
    case Trainable::kBatchNorm: return "bn";
    case Trainable::kBatchNormAndHead: return "bn+head";
    case Trainable::kAll: return "all";
    case Trainable::kModel: return "model";
  }
  return "unknown";
}

}  // namespace edgefold
