#include "training/trainer_buffers.h"

#include <algorithm>

#include "base/size_math.h"
#include "kernels/conv/conv_scratch.h"
#include "ops/window_params.h"

namespace edgefold {

const char* TrainingBufferKindName(TrainingBufferKind kind) {
  switch (kind) {
    case TrainingBufferKind::kActivation:
      return "activation";
    case TrainingBufferKind::kGradient:
      return "gradient";
    case TrainingBufferKind::kParameter:
      return "parameter";
    case TrainingBufferKind::kParameterGradient:
      return "parameter gradient";
    case TrainingBufferKind::kVelocity:
      return "velocity";
    case TrainingBufferKind::kNormalized:
      return "normalized input";
    case TrainingBufferKind::kStatistics:
      return "statistics";
    case TrainingBufferKind::kFrozenParamGradients:
      return "frozen parameter gradients";
    case TrainingBufferKind::kFolded:
      return "folded weights";
    case TrainingBufferKind::kScratch:
      return "scratch";
    case TrainingBufferKind::kColumns:
      return "columns";
    case TrainingBufferKind::kTemp:
      return "temp";
  }
  return "unknown";
}

namespace internal {
namespace {

using Kind = TrainingBufferKind;

// Hands each buffer to the visitor: One for a single buffer over `span`'s first life, Lives
// for one buffer per life of `span` (a recomputed segment's second life: life 1).
class Emitter {
 public:
  Emitter(TrainingBufferFn visit, void* user) : visit_(visit), user_(user) {}
  void One(Kind kind, int32_t owner, uint8_t index, size_t floats, StepSpan span) const {
    Emit(kind, owner, index, 0, floats, span.first, span.last);
  }
  void Lives(Kind kind, int32_t owner, uint8_t index, size_t floats, StepSpan span) const {
    Emit(kind, owner, index, 0, floats, span.first, span.last);
    if (span.again_first >= 0)
      Emit(kind, owner, index, 1, floats, span.again_first, span.again_last);
  }

 private:
  void Emit(Kind kind, int32_t owner, uint8_t index, uint8_t life, size_t floats, int32_t first,
            int32_t last) const {
    TrainingBuffer b;
    b.bytes = MulSat(floats, sizeof(float));
    b.first_step = first;
    b.last_step = last;
    b.kind = kind;
    b.owner = owner;
    b.index = index;
    b.life = life;
    visit_(user_, b);
  }

  TrainingBufferFn visit_;
  void* user_;
};

size_t FloatsOf(size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); }

// Every planned tensor gets its value and, but for the graph input, a gradient; each lives
// only as long as the step needs it (TrainSteps). A BatchNorm output written over its input
// (InPlaceInput) has the input's buffer, which covers both lifetimes; a BN input's gradient
// written over its output's (GradientShare) has none of its own.
void ValueBuffers(const BufferContext& c, const Emitter& e) {
  const TrainSteps& steps = c.steps;
  for (size_t i = 0; i < c.g.num_tensors(); ++i) {
    const TensorInfo ti = c.g.tensor(i);
    if (ti.is_constant) continue;
    const int32_t id = static_cast<int32_t>(i);
    if (steps.InPlaceInput(id) < 0) {
      StepSpan span = steps.Activation(id);
      for (int32_t y = steps.InPlaceOutput(id); y >= 0; y = steps.InPlaceOutput(y))
        span = Union(span, steps.Activation(y));
      e.Lives(Kind::kActivation, id, 0, ti.elems, span);
    }
    if (!steps.NeedsGradient(id) || steps.GradientShare(id) >= 0) continue;
    StepSpan grad_span = steps.Gradient(id);
    const int32_t sharer = steps.GradientSharer(id);
    if (sharer >= 0) grad_span = Union(grad_span, steps.Gradient(sharer));
    e.One(Kind::kGradient, id, 0, ti.elems, grad_span);
  }
}

// A constant training reads or updates: its arena copy; trainable, its gradient and momentum.
void ParameterBuffers(const BufferContext& c, const Emitter& e) {
  for (size_t i = 0; i < c.g.num_tensors(); ++i) {
    const TensorInfo ti = c.g.tensor(i);
    const int32_t id = static_cast<int32_t>(i);
    const ParamRole role = ti.is_constant ? RoleOf(c.g, id, c.trainable, c.head) : ParamRole::kNone;
    if (role == ParamRole::kNone) continue;
    e.One(Kind::kParameter, id, 0, ti.elems, c.steps.whole());
    if (role != ParamRole::kTrainable) continue;
    e.One(Kind::kParameterGradient, id, 0, ti.elems, c.steps.ParameterGradient(id));
    e.One(Kind::kVelocity, id, 0, ti.elems, c.steps.whole());
  }
}

// A BatchNorm's x̂ and batch statistics live from its forward to its backward (a frozen BN
// before the backward's start needs them only in its forward). x̂ is kept only for a backward,
// written over x where the BN is x's only reader (no buffer), or kept in 16 bits.
void BatchNormBuffers(const BufferContext& c, size_t j, const Emitter& e) {
  const OpDesc op = c.g.op(j);
  const TrainSteps& steps = c.steps;
  const int32_t bn = static_cast<int32_t>(j);
  const TensorInfo x = c.g.tensor(static_cast<size_t>(op.inputs[0]));
  const size_t channels = BatchNormChannels(x);
  const bool runs_backward = steps.RunsBackward(bn);
  const StepSpan span = runs_backward ? steps.ForwardToBackward(bn) : StepSpan{bn, bn};
  if (runs_backward && c.g.summary().saved_precision != 0)
    e.Lives(Kind::kNormalized, bn, 0, (x.elems + 1) / 2, span);
  else if (runs_backward && !steps.XhatInPlace(bn))
    e.Lives(Kind::kNormalized, bn, 0, x.elems, span);
  for (uint8_t k = 0; k < 3; ++k) e.Lives(Kind::kStatistics, bn, k, channels, span);
  // A BN the backward crosses but whose γ, β are frozen still computes dγ, dβ on the way to dx.
  if (runs_backward && RoleOf(c.g, op.inputs[1], c.trainable, c.head) != ParamRole::kTrainable)
    e.One(Kind::kFrozenParamGradients, bn, 0, 2 * channels,
          StepSpan{steps.backward(bn), steps.backward(bn)});
  const int32_t producer = c.g.summary().refold_weights ? FoldableProducer(c.g, j) : -1;
  if (producer < 0) return;
  const TensorInfo w =
      c.g.tensor(static_cast<size_t>(c.g.op(static_cast<size_t>(producer)).inputs[1]));
  e.One(Kind::kFolded, bn, 0, w.elems, steps.whole());
  e.One(Kind::kFolded, bn, 1, channels, steps.whole());
}

// Per-op scratch, alive only at the step that uses it: the forward's planned scratch, and for
// a conv's backward the im2col columns of x (for dW) and of dx, which can need more than the
// phase-plane scratch the inference plan gave the forward.
void OpBuffers(const BufferContext& c, size_t j, const Emitter& e) {
  const OpDesc op = c.g.op(j);
  const TrainSteps& steps = c.steps;
  const int32_t i = static_cast<int32_t>(j);
  if (op.scratch_bytes > 0)
    e.Lives(Kind::kScratch, i, 0, FloatsOf(op.scratch_bytes), steps.AtForward(i));
  if (op.kind != OpKind::kConv || !steps.RunsBackward(i)) return;
  const kernels::Conv2dShape sh =
      MakeConv2dShape(op.options.conv, c.g.tensor(op.inputs[0]), c.g.tensor(op.inputs[1]),
                      c.g.tensor(op.outputs[0]));
  if (kernels::ConvIsDepthwise(sh) || kernels::ConvIsPointwise(sh)) return;
  const size_t columns = FloatsOf(kernels::ConvIm2colScratchBytes(sh));
  const StepSpan backward{steps.backward(i), steps.backward(i)};
  if (RoleOf(c.g, op.inputs[1], c.trainable, c.head) == ParamRole::kTrainable)
    e.One(Kind::kColumns, i, 0, columns, backward);
  if (steps.NeedsGradient(op.inputs[0])) e.One(Kind::kColumns, i, 1, columns, backward);
}

// temp (backward_dense.cc): a BN's dx before it is added to a gradient other readers also
// feed, a depthwise conv's dx that no one needs. One float at least.
size_t TempElems(const BufferContext& c) {
  const ModelSummary& s = c.g.summary();
  size_t temp_elems = 1;
  for (size_t j = 0; j < c.g.num_ops(); ++j) {
    const OpDesc op = c.g.op(j);
    const int32_t i = static_cast<int32_t>(j);
    if (!c.steps.RunsBackward(i) || op.num_inputs == 0 || op.inputs[0] < 0) continue;
    const bool needs_dx = c.steps.NeedsGradient(op.inputs[0]);
    const bool uses_temp = op.kind == OpKind::kBatchNorm
                               ? needs_dx && !c.steps.OverwritesInput(i) && !s.frozen_statistics &&
                                     s.saved_precision == 0
                               : op.kind == OpKind::kConv && !needs_dx;
    if (uses_temp)
      temp_elems = std::max(temp_elems, c.g.tensor(static_cast<size_t>(op.inputs[0])).elems);
  }
  return temp_elems;
}

}  // namespace

size_t BatchNormChannels(const TensorInfo& x) {
  return x.rank >= 2 ? static_cast<size_t>(x.shape[1]) : 1;
}

void ForEachTrainerBuffer(const BufferContext& c, TrainingBufferFn visit, void* user) {
  const Emitter e(visit, user);
  ValueBuffers(c, e);
  ParameterBuffers(c, e);
  for (size_t j = 0; j < c.g.num_ops(); ++j)
    if (c.g.op(j).kind == OpKind::kBatchNorm) BatchNormBuffers(c, j, e);
  for (size_t j = 0; j < c.g.num_ops(); ++j) OpBuffers(c, j, e);
  const StepSpan temp_span{c.steps.loss(), c.steps.backward(c.steps.first_backward())};
  e.One(Kind::kTemp, -1, 0, TempElems(c), temp_span);
}

}  // namespace internal
}  // namespace edgefold
