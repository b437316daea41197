// Which constants training updates (RoleOf, the trainable set, the model's recorded set) and
// which BatchNorms fold into their producer.
#include <initializer_list>

#include "training/trainer_state.h"

namespace edgefold::internal {

int32_t FindHeadOp(const GraphView& g) {
  int32_t head = -1;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const OpKind kind = g.op(i).kind;
    if (kind == OpKind::kConv || kind == OpKind::kGemm) head = static_cast<int32_t>(i);
  }
  return head;
}

namespace {

bool Listed(const ModelSummary& s, int32_t tensor) {
  for (size_t i = 0; i < s.num_trainable; ++i)
    if (s.trainable[i] == tensor) return true;
  return false;
}

}  // namespace

ParamRole RoleOf(const GraphView& g, int32_t tensor, Trainable trainable, int32_t head_op) {
  const bool from_list = trainable == Trainable::kModel && g.summary().has_trainable_list;
  if (trainable == Trainable::kModel && !from_list) trainable = Trainable::kBatchNorm;
  ParamRole role = ParamRole::kNone;
  for (size_t j = 0; j < g.num_ops(); ++j) {
    const OpDesc op = g.op(j);
    for (uint32_t s = 0; s < op.num_inputs; ++s) {
      if (op.inputs[s] != tensor) continue;
      ParamRole r = ParamRole::kNone;
      if (op.kind == OpKind::kBatchNorm) {
        // γ, β: always trained under a preset; a recorded list may freeze some (a sparse update).
        if (s == 1 || s == 2)
          r = (!from_list || Listed(g.summary(), tensor)) ? ParamRole::kTrainable : r;
        if (s >= 3) r = ParamRole::kStatistic;
      } else if ((op.kind == OpKind::kConv || op.kind == OpKind::kGemm) && s >= 1) {
        const bool head = static_cast<int32_t>(j) == head_op;
        if (from_list ? Listed(g.summary(), tensor)
                      : trainable == Trainable::kAll ||
                            (trainable == Trainable::kBatchNormAndHead && head))
          r = ParamRole::kTrainable;
      }
      if (r > role) role = r;
    }
  }
  return role;
}

Status CheckTrainableAgrees(const GraphView& g, Trainable requested, ErrorReporter& errors) {
  const ModelSummary& s = g.summary();
  if (!s.has_trainable_list) return Status::kOk;
  const int32_t head = FindHeadOp(g);
  // The preset the model's list matches, for the message.
  const char* recorded = "a custom set";
  for (Trainable preset : {Trainable::kBatchNorm, Trainable::kBatchNormAndHead, Trainable::kAll}) {
    bool same = true;
    for (size_t i = 0; same && i < s.num_tensors; ++i) {
      const int32_t t = static_cast<int32_t>(i);
      same = (RoleOf(g, t, preset, head) == ParamRole::kTrainable) == Listed(s, t);
    }
    if (same) {
      recorded = TrainableName(preset);
      break;
    }
  }
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const int32_t t = static_cast<int32_t>(i);
    const bool listed = Listed(s, t);
    if (requested != Trainable::kModel &&
        (RoleOf(g, t, requested, head) == ParamRole::kTrainable) != listed) {
      errors.Report(
          "trainable set '%s' differs from the one the model was compiled for (%s, %zu "
          "tensors; first difference: '%s'): leave the option out to train what the model "
          "records, or recompile with --trainable %s",
          TrainableName(requested), recorded, s.num_trainable, g.tensor(i).name,
          TrainableName(requested));
      return Status::kInvalidArgument;
    }
  }
  return Status::kOk;
}

int32_t FoldableProducer(const GraphView& g, size_t bn_op) {
  const int32_t x = g.op(bn_op).inputs[0];
  for (size_t i = 0; i < g.summary_outputs(); ++i)
    if (g.output(i) == x) return -1;
  int32_t producer = -1;
  for (size_t j = 0; j < g.num_ops(); ++j) {
    const OpDesc op = g.op(j);
    if (op.outputs[0] == x) producer = static_cast<int32_t>(j);
    for (uint32_t k = 0; k < op.num_inputs; ++k)
      if (op.inputs[k] == x && j != bn_op) return -1;  // another consumer needs the unfolded value
  }
  if (producer < 0) return -1;
  const OpDesc p = g.op(static_cast<size_t>(producer));
  const bool conv = p.kind == OpKind::kConv && p.options.conv.act.kind == kernels::ActKind::kNone;
  const bool gemm = p.kind == OpKind::kGemm && p.options.act.kind == kernels::ActKind::kNone;
  if ((!conv && !gemm) || !g.tensor(static_cast<size_t>(p.inputs[1])).is_constant) return -1;
  return producer;
}

}  // namespace edgefold::internal
