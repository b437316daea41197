// PlaceTrainer: commits a TrainerLayout in one straight pass (trainer_plan.h).
#include <cstring>
#include <new>

#include "base/size_math.h"
#include "training/train_batch.h"
#include "training/trainer_buffers.h"
#include "training/trainer_plan.h"

namespace edgefold::internal {
namespace {

template <class T>
T* At(uint8_t* arena, size_t offset) {
  return reinterpret_cast<T*>(arena + offset);
}

// The pointers that switch between a recomputed segment's two buffers (PointerSwitch): each
// entry is recorded with its second buffer; the first is the slot's value once every buffer is
// placed (FillFirsts).
class SwitchList {
 public:
  SwitchList(PointerSwitch* entries, size_t capacity) : entries_(entries), capacity_(capacity) {}
  void AddSecond(void* slot, void* second, int32_t segment) {
    if (count_ < capacity_) entries_[count_++] = PointerSwitch{slot, nullptr, second, segment};
  }
  // The second buffer recorded for `slot`, or nullptr.
  void* SecondOf(const void* slot) const {
    for (size_t i = 0; i < count_; ++i)
      if (entries_[i].slot == slot) return entries_[i].second;
    return nullptr;
  }
  void FillFirsts() {
    for (size_t i = 0; i < count_; ++i)
      std::memcpy(&entries_[i].first, entries_[i].slot, sizeof(void*));
  }
  size_t count() const { return count_; }

 private:
  PointerSwitch* entries_;
  size_t capacity_;
  size_t count_ = 0;
};

// State and its records at the layout's offsets; the graph read from the model at the training
// batch, with no buffer yet (planned tensors, scratch and gradients null).
Trainer::State* PlaceRecords(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                             const TrainerLayout& l, uint8_t* arena) {
  Trainer::State* st = new (arena + l.state) Trainer::State(nullptr, nullptr);
  st->summary = s;
  st->options = t;
  st->tensors = At<TensorInfo>(arena, l.tensors);
  st->ops = At<OpDesc>(arena, l.ops);
  st->op_kernels = At<const OpKernel*>(arena, l.op_kernels);
  st->exec = At<const OpDesc*>(arena, l.exec);
  st->op_col = At<float*>(arena, l.op_col);
  st->op_dcol = At<float*>(arena, l.op_dcol);
  st->grads = At<float*>(arena, l.grads);
  st->grad_zero_before_op = At<int32_t>(arena, l.grad_starts);
  st->params = At<Param>(arena, l.params);
  st->num_params = l.num_params;
  st->bns = At<BnState>(arena, l.bns);
  st->num_bns = l.num_bns;
  st->switches = At<PointerSwitch>(arena, l.switches);
  ReadModel(model, nullptr, st->tensors, st->ops);
  for (size_t i = 0; i < s.num_tensors; ++i) {
    ScaleToTrainingBatch(s, &st->tensors[i]);
    st->grads[i] = nullptr;
  }
  for (size_t j = 0; j < s.num_ops; ++j) st->op_col[j] = st->op_dcol[j] = nullptr;
  return st;
}

// One record per constant training copies: parameters (trainable or not) and statistics.
void FillParams(Trainer::State& st, const BufferContext& c) {
  size_t p = 0;
  for (size_t i = 0; i < c.g.num_tensors(); ++i) {
    const TensorInfo ti = c.g.tensor(i);
    const int32_t id = static_cast<int32_t>(i);
    const ParamRole role = ti.is_constant ? RoleOf(c.g, id, c.trainable, c.head) : ParamRole::kNone;
    if (role == ParamRole::kNone) continue;
    Param& q = st.params[p++];
    q = Param();
    q.tensor = id;
    q.update_after_op = c.steps.FirstConsumer(id);
    q.elems = ti.elems;
    q.trainable = role == ParamRole::kTrainable;
  }
}

// Refold's W' and b' as two more tensors (after the model's), and the producer's rewritten
// inputs [x, W', b', y].
void FillFold(Trainer::State& st, const BufferContext& c, const OpDesc& bn_op, size_t b,
              OpDesc* folded, int32_t* folded_io) {
  BnState& bn = st.bns[b];
  const OpDesc producer = c.g.op(static_cast<size_t>(bn.producer));
  const int32_t wt = static_cast<int32_t>(c.g.num_tensors() + 2 * b), bt = wt + 1;
  st.tensors[wt] = c.g.tensor(static_cast<size_t>(producer.inputs[1]));
  st.tensors[wt].data = nullptr;
  st.tensors[wt].name = "folded weights";
  st.tensors[bt] = TensorInfo();
  st.tensors[bt].name = "folded bias";
  st.tensors[bt].rank = 1;
  st.tensors[bt].shape[0] = static_cast<int32_t>(bn.channels);
  st.tensors[bt].elems = bn.channels;
  st.tensors[bt].is_constant = true;
  const int32_t io[4] = {producer.inputs[0], wt, bt, bn_op.outputs[0]};
  std::memcpy(folded_io, io, sizeof(io));
  bn.folded = folded;
  bn.folded_io = folded_io;
}

// One record per BatchNorm: its shape, what its backward does, its deployed statistics (read
// in place from the model) and, with refolding, its producer.
void FillBatchNorms(Trainer::State& st, const BufferContext& c, const uint8_t* model,
                    const TrainerLayout& l, uint8_t* arena) {
  size_t b = 0, f = 0;
  for (size_t j = 0; j < c.g.num_ops(); ++j) {
    const OpDesc op = c.g.op(j);
    if (op.kind != OpKind::kBatchNorm) continue;
    const TensorInfo x = c.g.tensor(static_cast<size_t>(op.inputs[0]));
    BnState& bn = st.bns[b];
    bn = BnState();
    bn.op = static_cast<int32_t>(j);
    bn.channels = BatchNormChannels(x);
    bn.batch = (x.rank >= 1) ? static_cast<size_t>(x.shape[0]) : 1;
    bn.spatial = (bn.channels > 0 && bn.batch > 0) ? x.elems / (bn.channels * bn.batch) : 0;
    bn.dx_direct = c.steps.RunsBackward(bn.op) && c.steps.OverwritesInput(bn.op);
    TensorInfo deployed;
    ReadTensor(model, static_cast<size_t>(op.inputs[3]), nullptr, &deployed);
    bn.deployed_mean = deployed.data;
    ReadTensor(model, static_cast<size_t>(op.inputs[4]), nullptr, &deployed);
    bn.deployed_var = deployed.data;
    bn.producer = st.summary.refold_weights ? FoldableProducer(c.g, j) : -1;
    if (bn.producer >= 0) {
      FillFold(st, c, op, b, At<OpDesc>(arena, l.folded_ops) + f,
               At<int32_t>(arena, l.folded_io) + 4 * f);
      ++f;
    }
    ++b;
  }
}

// The placing pass's visitor: each buffer's address (the plan's offset for its role, or the
// next one after the other), stored where its role says.
struct Placer {
  Trainer::State& st;
  const BufferContext& c;
  const uint8_t* model;
  uint8_t* arena;
  SwitchList& switches;
  size_t bump_bytes = 0;
};

Param& ParamOf(Trainer::State& st, int32_t tensor) {
  size_t p = 0;
  while (p + 1 < st.num_params && st.params[p].tensor != tensor) ++p;
  return st.params[p];
}

size_t BnIndexOf(const Trainer::State& st, int32_t op) {
  size_t b = 0;
  while (b + 1 < st.num_bns && st.bns[b].op != op) ++b;
  return b;
}

// Life 0 sets the pointer; life 1 (a recomputed segment's) is the one it switches to.
template <class T>
void SetLife(Placer& p, T** slot, T* data, uint8_t life, int32_t segment) {
  if (life == 0)
    *slot = data;
  else
    p.switches.AddSecond(slot, data, segment);
}

// A value, and the BatchNorm outputs written over it (InPlaceOutput), share its buffer.
void PlaceValue(Placer& p, int32_t tensor, uint8_t life, float* data) {
  for (int32_t t = tensor; t >= 0; t = p.c.steps.InPlaceOutput(t))
    SetLife(p, &p.st.tensors[t].data, data, life, p.c.steps.segment(p.c.steps.Producer(t)));
}

void PlaceParameter(Placer& p, const TrainingBuffer& b, float* data) {
  Param& q = ParamOf(p.st, b.owner);
  TensorInfo& t = p.st.tensors[b.owner];
  if (b.kind == TrainingBufferKind::kParameter) {  // the model bytes stay read-only
    std::memcpy(data, t.data, t.elems * sizeof(float));
    t.data = q.data = data;
  } else if (b.kind == TrainingBufferKind::kParameterGradient) {
    p.st.grads[b.owner] = q.grad = data;
  } else {
    std::memset(data, 0, t.elems * sizeof(float));
    q.velocity = data;
  }
}

void PlaceBatchNorm(Placer& p, const TrainingBuffer& b, float* data) {
  const size_t index = BnIndexOf(p.st, b.owner);
  BnState& bn = p.st.bns[index];
  const int32_t segment = p.c.steps.segment(b.owner);
  switch (b.kind) {
    case TrainingBufferKind::kNormalized:
      if (p.st.summary.saved_precision != 0)
        SetLife(p, &bn.xhat16, reinterpret_cast<uint16_t*>(data), b.life, segment);
      else
        SetLife(p, &bn.xhat, data, b.life, segment);
      break;
    case TrainingBufferKind::kStatistics:
      SetLife(p,
              b.index == 0   ? &bn.mean
              : b.index == 1 ? &bn.var
                             : &bn.inv_std,
              data, b.life, segment);
      break;
    case TrainingBufferKind::kFrozenParamGradients:
      bn.frozen_dparams = data;
      break;
    default:
      p.st.tensors[p.c.g.num_tensors() + 2 * index + b.index].data = data;
      break;  // kFolded
  }
}

void PlaceBuffer(void* user, const TrainingBuffer& b) {
  Placer& p = *static_cast<Placer*>(user);
  size_t offset = 0;
  if (p.st.summary.has_training_plan) {
    offset = PlannedOffset(p.model, p.st.summary, b);  // PlanTrainer found every one
  } else {
    offset = RoundUpSat(p.bump_bytes, kArenaAlignment);
    p.bump_bytes = offset + b.bytes;
  }
  float* data = At<float>(p.arena, offset);
  switch (b.kind) {
    case TrainingBufferKind::kActivation:
      PlaceValue(p, b.owner, b.life, data);
      break;
    case TrainingBufferKind::kGradient:
      p.st.grads[b.owner] = data;
      break;
    case TrainingBufferKind::kParameter:
    case TrainingBufferKind::kParameterGradient:
    case TrainingBufferKind::kVelocity:
      PlaceParameter(p, b, data);
      break;
    case TrainingBufferKind::kScratch:
      SetLife(p, &p.st.ops[b.owner].scratch, data, b.life, p.c.steps.segment(b.owner));
      break;
    case TrainingBufferKind::kColumns:
      (b.index == 0 ? p.st.op_col : p.st.op_dcol)[b.owner] = data;
      break;
    case TrainingBufferKind::kTemp:
      p.st.temp = data;
      break;
    default:
      PlaceBatchNorm(p, b, data);
      break;
  }
}

// Per tensor, the backward where its gradient starts: its largest reader's, or, for a value
// nothing reads, its producer's (which then reads zeros). The logits' gradient comes from the
// loss, before any backward.
void FillGradientStarts(const GraphView& g, int32_t logits, int32_t skipped_op, int32_t* starts) {
  for (size_t t = 0; t < g.num_tensors(); ++t) starts[t] = -1;
  for (size_t j = 0; j < g.num_ops(); ++j) {
    if (static_cast<int32_t>(j) == skipped_op) continue;
    const OpDesc op = g.op(j);
    for (uint32_t k = 0; k < op.num_inputs; ++k)
      if (op.inputs[k] >= 0) starts[op.inputs[k]] = static_cast<int32_t>(j);
  }
  for (size_t j = 0; j < g.num_ops(); ++j) {
    const int32_t y = g.op(j).outputs[0];
    if (starts[y] < 0 && y != logits) starts[y] = static_cast<int32_t>(j);
  }
  if (logits >= 0) starts[logits] = -1;
}

// What shares a buffer placed already: x̂ written over x (XhatInPlace, both lives), a BN
// input's gradient written over its output's (GradientShare: never zeroed, written whole).
void LinkSharedBuffers(Trainer::State& st, const BufferContext& c, SwitchList& switches) {
  for (size_t b = 0; b < st.num_bns; ++b) {
    BnState& bn = st.bns[b];
    const bool half = c.steps.RunsBackward(bn.op) && st.summary.saved_precision != 0;
    if (half || !c.steps.XhatInPlace(bn.op)) continue;
    const int32_t x = st.ops[bn.op].inputs[0];
    bn.xhat = st.tensors[x].data;
    if (void* second = switches.SecondOf(&st.tensors[x].data))
      switches.AddSecond(&bn.xhat, second, c.steps.segment(bn.op));
  }
  int32_t logits = -1, skipped_op = -1;
  FindLogits(c.g, &logits, &skipped_op);
  FillGradientStarts(c.g, logits, skipped_op, st.grad_zero_before_op);
  for (size_t i = 0; i < st.summary.num_tensors; ++i) {
    const int32_t y = c.steps.GradientShare(static_cast<int32_t>(i));
    if (y < 0) continue;
    st.grads[i] = st.grads[y];
    st.grad_zero_before_op[i] = -2;
  }
  st.logits = logits;
  st.skipped_op = skipped_op;
}

}  // namespace

Trainer::State* PlaceTrainer(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                             const TrainerLayout& layout, uint8_t* arena) {
  Trainer::State* st = PlaceRecords(model, s, t, layout, arena);
  WithBufferContext(model, s, t.trainable, [&](const BufferContext& c) {
    SwitchList switches(st->switches, layout.max_switches);
    FillParams(*st, c);
    FillBatchNorms(*st, c, model, layout, arena);
    Placer placer{*st, c, model, arena, switches};
    ForEachTrainerBuffer(c, PlaceBuffer, &placer);
    LinkSharedBuffers(*st, c, switches);
    switches.FillFirsts();
    st->num_switches = switches.count();
    st->first_backward_op = c.steps.first_backward();
  });
  return st;
}

}  // namespace edgefold::internal
