#include "training/trainer_plan.h"

#include "base/size_math.h"
#include "training/train_batch.h"
#include "training/trainer_buffers.h"

namespace edgefold::internal {

TensorInfo GraphView::tensor(size_t i) const {
  TensorInfo t;
  ReadTensor(model_, i, nullptr, &t);
  ScaleToTrainingBatch(summary_, &t);
  return t;
}

OpDesc GraphView::op(size_t i) const {
  OpDesc d;
  ReadOp(model_, i, nullptr, &d);
  return d;
}

void FindLogits(const GraphView& g, int32_t* logits, int32_t* skipped_op) {
  *logits = -1;
  *skipped_op = -1;
  if (g.summary_outputs() == 0) return;
  *logits = g.output(0);
  const size_t last = g.num_ops() - 1;
  const OpDesc op = g.op(last);
  if (op.kind == OpKind::kSoftmax && op.outputs[0] == *logits) {
    *logits = op.inputs[0];
    *skipped_op = static_cast<int32_t>(last);
  }
}

size_t PlannedOffset(const uint8_t* model, const ModelSummary& s, const TrainingBuffer& b) {
  for (size_t i = 0; i < s.num_planned_buffers; ++i) {
    PlannedBuffer p;
    ReadPlannedBuffer(model, i, &p);
    if (p.kind == static_cast<uint8_t>(b.kind) && p.owner == b.owner && p.index == b.index &&
        p.life == b.life)
      return p.bytes == b.bytes ? p.offset : SIZE_MAX;
  }
  return SIZE_MAX;
}

namespace {

// The buffers' bytes: one after the other, or checked against the model's plan.
struct BufferTally {
  const uint8_t* model;
  const ModelSummary& s;
  const GraphView& g;
  ErrorReporter& errors;
  size_t bump_bytes = 0, count = 0;
  bool ok = true;
};

void Tally(void* user, const TrainingBuffer& b) {
  BufferTally& t = *static_cast<BufferTally*>(user);
  ++t.count;
  t.bump_bytes = AddSat(RoundUpSat(t.bump_bytes, kArenaAlignment), b.bytes);
  if (!t.s.has_training_plan || !t.ok || PlannedOffset(t.model, t.s, b) != SIZE_MAX) return;
  const bool of_tensor = b.kind <= TrainingBufferKind::kVelocity;
  const char* owner = b.owner < 0 ? ""
                      : of_tensor ? t.g.tensor(static_cast<size_t>(b.owner)).name
                                  : t.g.op(static_cast<size_t>(b.owner)).name;
  t.errors.Report(
      "training section: no planned buffer of %zu bytes for %s '%s''s %s buffer (index %u, life "
      "%u); "
      "recompile with 'edgefold compile --train'",
      b.bytes, of_tensor ? "tensor" : "op", owner, TrainingBufferKindName(b.kind),
      static_cast<unsigned>(b.index), static_cast<unsigned>(b.life));
  t.ok = false;
}

// The trainer's buffers: their bytes, and with a plan, each found in it by role and size.
Status PlanBuffers(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                   ErrorReporter& errors, size_t* buffer_bytes) {
  Status status = Status::kOk;
  WithBufferContext(model, s, t.trainable, [&](const BufferContext& c) {
    BufferTally tally{model, s, c.g, errors};
    ForEachTrainerBuffer(c, Tally, &tally);
    if (tally.ok && s.has_training_plan && tally.count != s.num_planned_buffers) {
      errors.Report(
          "training section: %zu planned buffers, this trainer has %zu; recompile with "
          "'edgefold compile --train'",
          s.num_planned_buffers, tally.count);
      tally.ok = false;
    }
    status = tally.ok ? Status::kOk : Status::kInvalidModel;
    *buffer_bytes = s.has_training_plan ? s.training_planned_bytes : tally.bump_bytes;
  });
  return status;
}

// The records' counts: parameters, BatchNorms, folds and the pointers that switch.
void CountRecords(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                  TrainerLayout* l) {
  const GraphView g(model, s);
  const int32_t head = FindHeadOp(g);
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const TensorInfo ti = g.tensor(i);
    if (ti.is_constant && RoleOf(g, static_cast<int32_t>(i), t.trainable, head) != ParamRole::kNone)
      ++l->num_params;
    // A value with a second life (one entry per activation tensor, the outputs a BatchNorm
    // writes over its input included). Counted over every tensor and op, not only the
    // recomputed ones: a value whose producer runs before a segment can still live again in it.
    if (s.num_recompute_segments > 0 && !ti.is_constant) ++l->max_switches;
  }
  for (size_t j = 0; j < s.num_ops; ++j) {
    const OpDesc op = g.op(j);
    const bool bn = op.kind == OpKind::kBatchNorm;
    l->num_bns += bn;
    l->num_folded += bn && s.refold_weights && FoldableProducer(g, j) >= 0;
    // A BatchNorm's x̂ (or its 16 bits), mean, var and inv_std; an op's scratch.
    if (s.num_recompute_segments > 0)
      l->max_switches += (bn ? 4 : 0) + (op.scratch_bytes > 0 ? 1 : 0);
  }
  l->num_tensors = s.num_tensors + (s.refold_weights ? 2 * l->num_bns : 0);
}

// Hands out consecutive aligned offsets after the buffers.
class RecordCursor {
 public:
  explicit RecordCursor(size_t start) : offset_(RoundUpSat(start, kArenaAlignment)) {}
  template <class T>
  size_t Take(size_t n) {
    offset_ = RoundUpSat(offset_, alignof(T));
    const size_t at = offset_;
    offset_ = AddSat(offset_, MulSat(n, sizeof(T)));
    return at;
  }
  size_t end() const { return RoundUpSat(offset_, kArenaAlignment); }

 private:
  size_t offset_;
};

}  // namespace

Status PlanTrainer(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                   ErrorReporter& errors, TrainerLayout* out) {
  TrainerLayout l;
  EDGEFOLD_RETURN_IF_ERROR(PlanBuffers(model, s, t, errors, &l.buffer_bytes));
  CountRecords(model, s, t, &l);
  RecordCursor r(l.buffer_bytes);
  l.state = r.Take<Trainer::State>(1);
  l.tensors = r.Take<TensorInfo>(l.num_tensors);
  l.ops = r.Take<OpDesc>(s.num_ops);
  l.op_kernels = r.Take<const OpKernel*>(s.num_ops);
  l.exec = r.Take<const OpDesc*>(s.num_ops);
  l.op_col = r.Take<float*>(s.num_ops);
  l.op_dcol = r.Take<float*>(s.num_ops);
  l.grads = r.Take<float*>(s.num_tensors);
  l.grad_starts = r.Take<int32_t>(s.num_tensors);
  l.params = r.Take<Param>(l.num_params);
  l.bns = r.Take<BnState>(l.num_bns);
  l.folded_ops = r.Take<OpDesc>(l.num_folded);
  l.folded_io = r.Take<int32_t>(4 * l.num_folded);
  l.switches = r.Take<PointerSwitch>(l.max_switches);
  l.total_bytes = r.end();
  *out = l;
  return Status::kOk;
}

}  // namespace edgefold::internal
