#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <new>

#include "base/size_math.h"
#include "kernels/conv/conv_scratch.h"
#include "ops/window_params.h"
#include "training/train_batch.h"
#include "training/train_steps.h"
#include "training/trainer_state.h"

namespace edgefold::internal {
namespace {

// Hands out consecutive aligned regions; with a null base it only counts bytes.
class Bump {
 public:
  Bump(uint8_t* base, size_t start_bytes) : base_(base), offset_(start_bytes) {}
  template <class T>
  T* Take(size_t n, size_t align = alignof(T)) {
    offset_ = RoundUpSat(offset_, align);
    T* p = base_ ? reinterpret_cast<T*>(base_ + offset_) : nullptr;
    offset_ = AddSat(offset_, MulSat(n, sizeof(T)));
    return p;
  }
  float* Floats(size_t n) { return Take<float>(n, kArenaAlignment); }
  size_t used() const { return RoundUpSat(offset_, kArenaAlignment); }

 private:
  uint8_t* base_;
  size_t offset_;
};

// Sizing passes read planned tensors against this base; their data pointers are never used.
alignas(64) uint8_t g_sizing_base[64];

}  // namespace

TensorInfo GraphView::tensor(size_t i) const {
  if (tensors_ != nullptr) return tensors_[i];
  TensorInfo t;
  ReadTensor(model_, i, g_sizing_base, &t);
  ScaleToTrainingBatch(summary_, &t);
  return t;
}

OpDesc GraphView::op(size_t i) const {
  if (ops_ != nullptr) return ops_[i];
  OpDesc d;
  ReadOp(model_, i, g_sizing_base, &d);
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

namespace {

// Where each training buffer goes: at the compiler's planned offset (the model's training
// section), else one after the other (bump). With `visit` (sizing only) each buffer is also
// listed with its lifetime for the compiler's planner.
class BufferPlacer {
 public:
  BufferPlacer(const ModelSummary& s, Bump* bump, uint8_t* planned_base, TrainingBufferFn visit,
               void* user)
      : s_(s), bump_(bump), planned_base_(planned_base), visit_(visit), user_(user) {}

  float* Take(size_t floats, StepSpan span) {
    const size_t bytes = MulSat(floats, sizeof(float));
    if (visit_ != nullptr) visit_(user_, TrainingBuffer{bytes, span.first, span.last});
    const size_t k = count_++;
    if (!s_.has_training_plan) return bump_->Floats(floats);
    if (k >= s_.num_training_offsets || s_.training_offsets[k] > s_.training_planned_bytes ||
        bytes > s_.training_planned_bytes - s_.training_offsets[k]) {
      mismatch_ = true;
      return nullptr;
    }
    return planned_base_ ? reinterpret_cast<float*>(planned_base_ + s_.training_offsets[k]) : nullptr;
  }
  // A buffer per life of `span`: the first is returned, a second life's (a recomputed
  // segment's) goes to *second (nullptr without one).
  float* TakeLives(size_t floats, StepSpan span, float** second) {
    float* first = Take(floats, StepSpan{span.first, span.last});
    *second = span.again_first >= 0 ? Take(floats, StepSpan{span.again_first, span.again_last}) : nullptr;
    return first;
  }
  bool matches_plan() const {
    return !s_.has_training_plan || (!mismatch_ && count_ == s_.num_training_offsets);
  }

 private:
  const ModelSummary& s_;
  Bump* bump_;
  uint8_t* planned_base_;
  TrainingBufferFn visit_;
  void* user_;
  size_t count_ = 0;
  bool mismatch_ = false;
};

// The pointers that switch between a recomputed segment's two buffers (PointerSwitch). Sized
// by an upper bound before the buffers are placed; entries are written only with an arena.
class SwitchList {
 public:
  SwitchList(PointerSwitch* entries, size_t capacity) : entries_(entries), capacity_(capacity) {}
  template <class T>
  void Add(T** slot, T* first, T* second, int32_t segment) {
    if (second == nullptr) return;
    if (entries_ != nullptr && count_ < capacity_) entries_[count_] = PointerSwitch{slot, first, second, segment};
    ++count_;
  }
  bool fits() const { return count_ <= capacity_; }
  // The second buffer recorded for `slot`, or nullptr.
  void* SecondOf(const void* slot) const {
    for (size_t i = 0; entries_ != nullptr && i < count_; ++i)
      if (entries_[i].slot == slot) return entries_[i].second;
    return nullptr;
  }
  size_t count() const { return count_; }

 private:
  PointerSwitch* entries_;
  size_t capacity_;
  size_t count_ = 0;
};

// A buffer per life of `span`; `slot` (the pointer that will hold it; nullptr in a sizing pass)
// is listed to switch between them when there is a second life.
template <class T>
T* TakeSwitched(BufferPlacer& place, SwitchList& switches, size_t floats, StepSpan span, T** slot, int32_t segment) {
  float* second = nullptr;
  T* first = reinterpret_cast<T*>(place.TakeLives(floats, span, &second));
  if (slot != nullptr) switches.Add(slot, first, reinterpret_cast<T*>(second), segment);
  return first;
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

}  // namespace

size_t LayoutTrainer(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                     uint8_t* arena, Trainer::State** out, TrainingBufferFn visit, void* visit_user) {
  // Planned buffers first (the compiler's offsets), then the trainer's own records.
  Bump bump(arena, s.has_training_plan ? RoundUpSat(s.training_planned_bytes, kArenaAlignment) : 0);
  Trainer::State* st = bump.Take<Trainer::State>(1);
  // With --refold-weights, two extra tensors per BatchNorm: the folded W' and b' of its producer.
  size_t bn_count = 0;
  for (size_t j = 0; j < s.num_ops && s.refold_weights; ++j) {
    OpDesc d;
    ReadOp(model, j, g_sizing_base, &d);
    bn_count += d.kind == OpKind::kBatchNorm;
  }
  TensorInfo* tensors = bump.Take<TensorInfo>(s.num_tensors + 2 * bn_count);
  OpDesc* ops = bump.Take<OpDesc>(s.num_ops);
  const OpKernel** op_kernels = bump.Take<const OpKernel*>(s.num_ops);
  const OpDesc** exec = bump.Take<const OpDesc*>(s.num_ops);
  float** op_col = bump.Take<float*>(s.num_ops);
  float** op_dcol = bump.Take<float*>(s.num_ops);
  float** grads = bump.Take<float*>(s.num_tensors);
  int32_t* grad_starts = bump.Take<int32_t>(s.num_tensors);
  if (arena != nullptr) {
    st = new (st) Trainer::State(nullptr, nullptr);
    st->summary = s;
    st->options = t;
    st->tensors = tensors;
    st->ops = ops;
    st->op_kernels = op_kernels;
    st->grads = grads;
    st->grad_zero_before_op = grad_starts;
    ReadModel(model, g_sizing_base, tensors, ops);   // planned pointers are replaced below
    for (size_t i = 0; i < s.num_tensors; ++i) ScaleToTrainingBatch(s, &tensors[i]);
  }
  const GraphView g(model, s, arena ? tensors : nullptr, arena ? ops : nullptr);
  const int32_t head = FindHeadOp(g);
  int32_t logits = -1, skipped_op = -1;
  FindLogits(g, &logits, &skipped_op);
  const TrainSteps steps(g, t.trainable, logits, skipped_op);
  BufferPlacer place(s, &bump, arena, visit, visit_user);

  size_t num_params = 0, num_bns = 0, temp_elems = 1;
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const TensorInfo ti = g.tensor(i);
    if (ti.is_constant && RoleOf(g, static_cast<int32_t>(i), t.trainable, head) != ParamRole::kNone)
      ++num_params;
  }
  for (size_t j = 0; j < s.num_ops; ++j) {
    const OpDesc op = g.op(j);
    if (op.kind == OpKind::kBatchNorm) ++num_bns;
    // temp (backward_dense.cc): a BN's dx before it is added to a gradient other readers
    // also feed, a depthwise conv's dx that no one needs
    const int32_t i = static_cast<int32_t>(j);
    if (!steps.RunsBackward(i) || op.num_inputs == 0 || op.inputs[0] < 0) continue;
    const bool needs_dx = steps.NeedsGradient(op.inputs[0]);
    const bool uses_temp = op.kind == OpKind::kBatchNorm
                               ? needs_dx && !steps.OverwritesInput(i) && !s.frozen_statistics && s.saved_precision == 0
                                                         : op.kind == OpKind::kConv && !needs_dx;
    if (uses_temp) temp_elems = std::max(temp_elems, g.tensor(static_cast<size_t>(op.inputs[0])).elems);
  }
  Param* params = bump.Take<Param>(num_params);
  BnState* bns = bump.Take<BnState>(num_bns);
  // What switches: a value with a second life (at most one entry per activation tensor, the
  // outputs a BatchNorm writes over its input included), a BatchNorm's x̂ (or its 16 bits), mean,
  // var and inv_std, an op's scratch. Counted over every tensor and op, not only the recomputed
  // ones: a value whose producer runs before a segment can still live again inside it, and an
  // undercount let the last entry overwrite the records after the list.
  size_t max_switches = 0;
  for (size_t i = 0; i < s.num_tensors && s.num_recompute_segments > 0; ++i) max_switches += !g.tensor(i).is_constant;
  for (size_t j = 0; j < s.num_ops && s.num_recompute_segments > 0; ++j) {
    const OpDesc op = g.op(j);
    max_switches += (op.kind == OpKind::kBatchNorm ? 4 : 0) + (op.scratch_bytes > 0 ? 1 : 0);
  }
  PointerSwitch* switch_entries = bump.Take<PointerSwitch>(max_switches);
  SwitchList switches(arena != nullptr ? switch_entries : nullptr, max_switches);

  // Every planned tensor gets its value and, but for the graph input, a gradient; each lives
  // only as long as the step needs it (TrainSteps), so planned buffers share memory.
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const TensorInfo ti = g.tensor(i);
    if (ti.is_constant) continue;
    const int32_t id = static_cast<int32_t>(i);
    // The value: a BatchNorm output written over its input (InPlaceInput) is placed with it.
    if (steps.InPlaceInput(id) < 0) {
      StepSpan span = steps.Activation(id);
      for (int32_t y = steps.InPlaceOutput(id); y >= 0; y = steps.InPlaceOutput(y))
        span = Union(span, steps.Activation(y));
      float* again = nullptr;
      float* act = place.TakeLives(ti.elems, span, &again);
      if (arena != nullptr) {
        tensors[i].data = act;
        switches.Add(&tensors[i].data, act, again, steps.segment(steps.Producer(id)));
        for (int32_t y = steps.InPlaceOutput(id); y >= 0; y = steps.InPlaceOutput(y)) {
          tensors[y].data = act;
          switches.Add(&tensors[y].data, act, again, steps.segment(steps.Producer(y)));
        }
      }
    }
    // The gradient: a BN input's, written over its output's (GradientShare), gets no buffer of
    // its own; the output's covers both lifetimes.
    StepSpan grad_span = visit ? steps.Gradient(id) : StepSpan{};
    const int32_t sharer = steps.GradientSharer(id);
    if (visit && sharer >= 0) grad_span = Union(grad_span, steps.Gradient(sharer));
    const bool own_grad = steps.NeedsGradient(id) && steps.GradientShare(id) < 0;
    float* grad = own_grad ? place.Take(ti.elems, grad_span) : nullptr;
    if (arena != nullptr) grads[i] = grad;
  }
  size_t p = 0;
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const TensorInfo ti = g.tensor(i);
    const int32_t id = static_cast<int32_t>(i);
    const ParamRole role = ti.is_constant ? RoleOf(g, id, t.trainable, head) : ParamRole::kNone;
    if (role == ParamRole::kNone) {
      if (arena != nullptr && ti.is_constant) grads[i] = nullptr;
      continue;
    }
    const bool trainable = role == ParamRole::kTrainable;
    float* copy = place.Take(ti.elems, steps.whole());
    float* grad = trainable ? place.Take(ti.elems, visit ? steps.ParameterGradient(id) : StepSpan{}) : nullptr;
    float* velocity = trainable ? place.Take(ti.elems, steps.whole()) : nullptr;
    if (arena != nullptr) {
      std::memcpy(copy, tensors[i].data, ti.elems * sizeof(float));
      tensors[i].data = copy;
      grads[i] = grad;
      if (velocity != nullptr) std::memset(velocity, 0, ti.elems * sizeof(float));
      params[p] = Param{id, -1, copy, grad, velocity, ti.elems, trainable};
    }
    ++p;
  }
  size_t b = 0;
  for (size_t j = 0; j < s.num_ops; ++j) {
    const OpDesc op = g.op(j);
    if (op.kind != OpKind::kBatchNorm) continue;
    const TensorInfo x = g.tensor(static_cast<size_t>(op.inputs[0]));
    const size_t channels = (x.rank >= 2) ? static_cast<size_t>(x.shape[1]) : 1;
    BnState bn;
    bn.op = static_cast<int32_t>(j);
    // x̂ and the batch statistics: from the BN's forward to its backward (a frozen BN before
    // the backward's start needs them only in its forward).
    const int32_t bn_op = static_cast<int32_t>(j);
    const bool runs_backward = steps.RunsBackward(bn_op);
    const StepSpan bn_span = runs_backward ? steps.ForwardToBackward(bn_op) : StepSpan{bn_op, bn_op};
    const int32_t seg = steps.segment(bn_op);
    // x̂: kept only for a backward, written over x where the BN is x's only reader. Saved in
    // 16 bits, it is float32 only at the forward (over x, or scratch) and at the backward.
    const bool half = runs_backward && s.saved_precision != 0;
    if (half) {   // narrowed as it is computed; the backward reads it in 16 bits
      bn.xhat = nullptr;
      bn.xhat16 = TakeSwitched(place, switches, (x.elems + 1) / 2, bn_span, arena ? &bns[b].xhat16 : nullptr, seg);
    } else {
      if (runs_backward && !steps.XhatInPlace(bn_op))
        bn.xhat = TakeSwitched(place, switches, x.elems, bn_span, arena ? &bns[b].xhat : nullptr, seg);
      if (arena != nullptr && steps.XhatInPlace(bn_op)) {   // over x: x's buffers, both lives
        bn.xhat = tensors[op.inputs[0]].data;
        switches.Add(&bns[b].xhat, bn.xhat, static_cast<float*>(switches.SecondOf(&tensors[op.inputs[0]].data)), seg);
      }
    }
    bn.mean = TakeSwitched(place, switches, channels, bn_span, arena ? &bns[b].mean : nullptr, seg);
    bn.var = TakeSwitched(place, switches, channels, bn_span, arena ? &bns[b].var : nullptr, seg);
    bn.inv_std = TakeSwitched(place, switches, channels, bn_span, arena ? &bns[b].inv_std : nullptr, seg);
    // A BN the backward crosses but whose γ, β are frozen still computes dγ, dβ on the way to dx.
    const bool frozen = RoleOf(g, op.inputs[1], t.trainable, head) != ParamRole::kTrainable;
    bn.frozen_dparams = runs_backward && frozen
                            ? place.Take(2 * channels, StepSpan{steps.backward(bn_op), steps.backward(bn_op)})
                            : nullptr;
    bn.dx_direct = runs_backward && steps.OverwritesInput(bn_op);
    if (arena != nullptr) {   // the deployed statistics stay where they are: in the model
      TensorInfo deployed;
      ReadTensor(model, static_cast<size_t>(op.inputs[3]), g_sizing_base, &deployed);
      bn.deployed_mean = deployed.data;
      ReadTensor(model, static_cast<size_t>(op.inputs[4]), g_sizing_base, &deployed);
      bn.deployed_var = deployed.data;
    }
    bn.channels = channels;
    bn.batch = (x.rank >= 1) ? static_cast<size_t>(x.shape[0]) : 1;
    bn.spatial = (channels > 0 && bn.batch > 0) ? x.elems / (channels * bn.batch) : 0;
    bn.producer = s.refold_weights ? FoldableProducer(g, j) : -1;
    if (bn.producer >= 0) {
      const TensorInfo w = g.tensor(static_cast<size_t>(g.op(static_cast<size_t>(bn.producer)).inputs[1]));
      bn.folded = bump.Take<OpDesc>(1);
      bn.folded_io = bump.Take<int32_t>(4);
      float* folded_w = place.Take(w.elems, steps.whole());
      float* folded_b = place.Take(channels, steps.whole());
      if (arena != nullptr) {
        const int32_t wt = static_cast<int32_t>(s.num_tensors + 2 * b), bt = wt + 1;
        tensors[wt] = w;
        tensors[wt].data = folded_w;
        tensors[wt].name = "folded weights";
        tensors[bt] = TensorInfo();
        tensors[bt].name = "folded bias";
        tensors[bt].rank = 1;
        tensors[bt].shape[0] = static_cast<int32_t>(channels);
        tensors[bt].elems = channels;
        tensors[bt].data = folded_b;
        tensors[bt].is_constant = true;
        const OpDesc& p = ops[bn.producer];
        const int32_t io[4] = {p.inputs[0], wt, bt, op.outputs[0]};
        std::memcpy(bn.folded_io, io, sizeof(io));
      }
    }
    if (arena != nullptr) bns[b] = bn;
    ++b;
  }
  // Per-op scratch, alive only at the step that uses it: the forward's planned scratch, and for
  // a conv's backward the im2col columns of x (for dW) and of dx, which can need more than the
  // phase-plane scratch the inference plan gave the forward.
  for (size_t j = 0; j < s.num_ops; ++j) {
    const OpDesc op = g.op(j);
    const int32_t i = static_cast<int32_t>(j);
    const auto floats = [](size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); };
    float* scratch = op.scratch_bytes > 0 ? TakeSwitched(place, switches, floats(op.scratch_bytes), steps.AtForward(i),
                                                         arena ? &ops[j].scratch : nullptr, steps.segment(i))
                                          : nullptr;
    float *col = nullptr, *dcol = nullptr;
    if (op.kind == OpKind::kConv && steps.RunsBackward(i)) {
      const kernels::Conv2dShape sh = MakeConv2dShape(op.options.conv, g.tensor(op.inputs[0]),
                                                      g.tensor(op.inputs[1]), g.tensor(op.outputs[0]));
      if (!kernels::ConvIsDepthwise(sh) && !kernels::ConvIsPointwise(sh)) {
        const size_t columns = floats(kernels::ConvIm2colScratchBytes(sh));
        const StepSpan backward{steps.backward(i), steps.backward(i)};
        if (RoleOf(g, op.inputs[1], t.trainable, head) == ParamRole::kTrainable)
          col = place.Take(columns, backward);
        if (steps.NeedsGradient(op.inputs[0])) dcol = place.Take(columns, backward);
      }
    }
    if (arena != nullptr) {
      ops[j].scratch = scratch;
      op_col[j] = col;
      op_dcol[j] = dcol;
    }
  }
  float* temp = place.Take(temp_elems, StepSpan{steps.loss(), steps.backward(steps.first_backward())});
  if (!place.matches_plan() || !switches.fits()) return SIZE_MAX;
  if (arena != nullptr) {
    FillGradientStarts(g, logits, skipped_op, grad_starts);
    for (size_t i = 0; i < s.num_tensors; ++i) {
      const int32_t y = steps.GradientShare(static_cast<int32_t>(i));
      if (y < 0) continue;
      grads[i] = grads[y];     // dx over dy: written whole by the BN's backward, never zeroed
      grad_starts[i] = -2;
    }
    for (size_t q = 0; q < num_params; ++q) params[q].update_after_op = steps.FirstConsumer(params[q].tensor);
    st->logits = logits;
    st->skipped_op = skipped_op;
    st->first_backward_op = steps.first_backward();
    st->params = params;
    st->num_params = num_params;
    st->bns = bns;
    st->num_bns = num_bns;
    st->exec = exec;
    st->op_col = op_col;
    st->op_dcol = op_dcol;
    st->temp = temp;
    st->switches = switch_entries;
    st->num_switches = switches.count();
    *out = st;
  }
  return bump.used();
}

}  // namespace edgefold::internal
