#include "training/train_batch.h"

#include "base/size_math.h"
#include "ops/op_kernel.h"

namespace edgefold::internal {

void ScaleToTrainingBatch(const ModelSummary& s, TensorInfo* t) {
  if (s.training_batch_scale <= 1 || s.frozen_statistics || t->is_constant || t->rank < 1) return;
  t->shape[0] = static_cast<int32_t>(static_cast<size_t>(t->shape[0]) * s.training_batch_scale);
  t->elems = MulSat(t->elems, s.training_batch_scale);
}

namespace {

// Which of the op's options act on dim 0 of its input (of rank `rank`), or nullptr.
const char* MixesSamples(const OpDesc& op, int rank) {
  switch (op.kind) {
    case OpKind::kTranspose:
      return op.options.transpose.perm[0] != 0 ? "its permutation moves dim 0" : nullptr;
    case OpKind::kConcat:
    case OpKind::kSoftmax: {
      const int axis =
          op.options.axis.axis < 0 ? op.options.axis.axis + rank : op.options.axis.axis;
      return axis == 0 ? "its axis is the batch" : nullptr;
    }
    case OpKind::kPad: {
      const PadOptions& p = op.options.pad;
      const bool batch_padded = p.num_pads >= 2 && (p.pads[0] != 0 || p.pads[p.num_pads / 2] != 0);
      return batch_padded ? "it pads the batch" : nullptr;
    }
    case OpKind::kSlice:
      return (op.options.slice.starts[0] != 0 || op.options.slice.steps[0] != 1)
                 ? "it slices the batch"
                 : nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

Status CheckBatchScalable(const GraphView& g, ErrorReporter& errors) {
  const ModelSummary& s = g.summary();
  if (s.training_batch_scale <= 1 || s.frozen_statistics || s.num_inputs == 0) return Status::kOk;
  const TensorInfo input = g.tensor(static_cast<size_t>(s.inputs[0]));
  const int32_t batch = input.shape[0];
  for (size_t i = 0; i < g.num_tensors(); ++i) {
    const TensorInfo t = g.tensor(i);
    if (t.is_constant) continue;
    if (t.rank < 1 || t.shape[0] != batch) {
      errors.Report(
          "tensor '%s' does not lead with the batch, so the graph cannot train at batch %d: "
          "compile with --infer-batch %d (graph and training at the same batch)",
          t.name, static_cast<int>(batch), static_cast<int>(batch));
      return Status::kInvalidModel;
    }
  }
  for (size_t j = 0; j < g.num_ops(); ++j) {
    const OpDesc op = g.op(j);
    const int rank = op.num_inputs > 0 && op.inputs[0] >= 0
                         ? g.tensor(static_cast<size_t>(op.inputs[0])).rank
                         : 0;
    if (const char* why = MixesSamples(op, rank)) {
      errors.Report(
          "op '%s' (%s): %s, so the graph cannot train at batch %d: compile with --infer-batch %d",
          op.name, OpKindName(op.kind), why, static_cast<int>(batch), static_cast<int>(batch));
      return Status::kInvalidModel;
    }
  }
  return Status::kOk;
}

}  // namespace edgefold::internal
