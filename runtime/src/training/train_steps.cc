#include "training/train_steps.h"

#include <algorithm>

namespace edgefold::internal {
namespace {

bool HasFusedActivation(const OpDesc& op) {
  switch (op.kind) {
    case OpKind::kConv:
      return op.options.conv.act.kind != kernels::ActKind::kNone;
    case OpKind::kGemm:
    case OpKind::kChannelAffine:
      return op.options.act.kind != kernels::ActKind::kNone;
    case OpKind::kBatchNorm:
      return op.options.batchnorm.act.kind != kernels::ActKind::kNone;
    case OpKind::kBinary:
      return op.options.binary.act.kind != kernels::ActKind::kNone;
    default:
      return false;
  }
}

// Its backward reads its own output: a fused activation's gradient from the output (a BN
// recomputes its activation from x̂ instead), Softmax's.
bool BackwardReadsOutput(const OpDesc& op) {
  return (HasFusedActivation(op) && op.kind != OpKind::kBatchNorm) || op.kind == OpKind::kSoftmax;
}

// The earliest op with a trainable parameter.
int32_t FirstTrainedOp(const GraphView& g, Trainable trainable, int32_t head) {
  for (size_t j = 0; j < g.num_ops(); ++j) {
    const OpDesc op = g.op(j);
    for (uint32_t k = 0; k < op.num_inputs; ++k)
      if (op.inputs[k] >= 0 && g.tensor(static_cast<size_t>(op.inputs[k])).is_constant &&
          RoleOf(g, op.inputs[k], trainable, head) == ParamRole::kTrainable)
        return static_cast<int32_t>(j);
  }
  return static_cast<int32_t>(g.num_ops());
}

}  // namespace

StepSpan Union(StepSpan a, StepSpan b) {
  StepSpan u{std::min(a.first, b.first), std::max(a.last, b.last)};
  if (a.again_first < 0) a.again_first = a.again_last = b.again_first;
  if (b.again_first < 0) b.again_first = b.again_last = a.again_first;
  u.again_first = std::min(a.again_first, b.again_first);
  u.again_last = std::max(a.again_last, b.again_last);
  return u;
}

TrainSteps::TrainSteps(const GraphView& g, Trainable trainable, int32_t logits, int32_t skipped_op)
    : g_(g),
      trainable_(trainable),
      head_(FindHeadOp(g)),
      logits_(logits),
      skipped_op_(skipped_op),
      n_(static_cast<int32_t>(g.num_ops())),
      first_backward_(FirstTrainedOp(g, trainable, head_)),
      segments_(g.summary(), first_backward_) {}

int32_t TrainSteps::SegmentBase(size_t k) const {
  int32_t base = n_ + 1;
  for (size_t j = segments_.count(); j-- > k + 1;)
    base += (segments_.end(j) - segments_.start(j)) * (segments_.recomputed(j) ? 2 : 1);
  return base;
}

int32_t TrainSteps::backward(int32_t op) const {
  const int32_t k = segments_.SegmentOf(op);
  if (k < 0) {  // before the backward's start: after every segment, in reverse op order
    const size_t count = segments_.count();
    return (count == 0 ? n_ + 1
                       : SegmentBase(0) + (segments_.end(0) - segments_.start(0)) *
                                              (segments_.recomputed(0) ? 2 : 1)) +
           (first_backward_ - 1 - op);
  }
  const size_t s = static_cast<size_t>(k);
  const int32_t rerun = segments_.recomputed(s) ? segments_.end(s) - segments_.start(s) : 0;
  return SegmentBase(s) + rerun + (segments_.end(s) - 1 - op);
}

int32_t TrainSteps::recompute(int32_t op) const {
  const int32_t k = segments_.SegmentOf(op);
  if (k < 0 || !segments_.recomputed(static_cast<size_t>(k))) return -1;
  return SegmentBase(static_cast<size_t>(k)) + (op - segments_.start(static_cast<size_t>(k)));
}

StepSpan TrainSteps::AtForward(int32_t op) const {
  StepSpan s{op, op};
  s.again_first = s.again_last = recompute(op);
  return s;
}

StepSpan TrainSteps::ForwardToBackward(int32_t op) const {
  const int32_t again = recompute(op);
  if (again < 0) return {op, backward(op)};
  StepSpan s{op, op};
  s.again_first = again;
  s.again_last = backward(op);
  return s;
}

bool TrainSteps::NeedsGradient(int32_t tensor) const {
  const int32_t producer = Producer(tensor);
  return producer >= 0 && RunsBackward(producer);
}

int32_t TrainSteps::Producer(int32_t tensor) const {
  for (size_t j = 0; j < g_.num_ops(); ++j)
    if (g_.op(j).outputs[0] == tensor) return static_cast<int32_t>(j);
  return -1;
}

bool TrainSteps::OnlyReader(int32_t x, int32_t op) const {
  if (x < 0 || g_.tensor(static_cast<size_t>(x)).is_constant || x == logits_) return false;
  const int32_t producer = Producer(x);
  if (producer < 0 ||
      (RunsBackward(producer) && BackwardReadsOutput(g_.op(static_cast<size_t>(producer)))))
    return false;
  for (size_t o = 0; o < g_.summary_outputs(); ++o)
    if (g_.output(o) == x) return false;
  // A value entering a recomputed segment is a checkpoint: written over in the first forward,
  // it would be gone when the segment runs again.
  if (recompute(op) >= 0 && segments_.SegmentOf(producer) != segments_.SegmentOf(op)) return false;
  for (size_t j = 0; j < g_.num_ops(); ++j) {
    const OpDesc other = g_.op(j);
    for (uint32_t k = 0; k < other.num_inputs; ++k)
      if (other.inputs[k] == x && static_cast<int32_t>(j) != op) return false;
  }
  return true;
}

int32_t TrainSteps::InPlaceInput(int32_t tensor) const {
  const int32_t producer = Producer(tensor);
  if (producer < 0 || producer == skipped_op_) return -1;
  const OpDesc op = g_.op(static_cast<size_t>(producer));
  if (op.kind != OpKind::kBatchNorm || !OnlyReader(op.inputs[0], producer)) return -1;
  // Before the backward's start (nothing saved), or with x̂ saved in 16 bits (its own buffer).
  return !RunsBackward(producer) || g_.summary().saved_precision != 0 ? op.inputs[0] : -1;
}

bool TrainSteps::XhatInPlace(int32_t bn_op) const {
  const OpDesc op = g_.op(static_cast<size_t>(bn_op));
  return op.kind == OpKind::kBatchNorm && RunsBackward(bn_op) && OnlyReader(op.inputs[0], bn_op) &&
         g_.summary().saved_precision == 0;  // a 16-bit x̂ has its own (smaller) buffer
}

int32_t TrainSteps::GradientShare(int32_t x) const {
  if (x < 0 || !NeedsGradient(x)) return -1;
  for (size_t j = 0; j < g_.num_ops(); ++j) {
    const OpDesc op = g_.op(j);
    if (op.kind == OpKind::kBatchNorm && op.inputs[0] == x &&
        RunsBackward(static_cast<int32_t>(j)) && OverwritesInput(static_cast<int32_t>(j)))
      return op.outputs[0];
  }
  return -1;
}

int32_t TrainSteps::GradientSharer(int32_t y) const {
  const int32_t producer = Producer(y);
  if (producer < 0) return -1;
  const int32_t x = g_.op(static_cast<size_t>(producer)).inputs[0];
  return GradientShare(x) == y ? x : -1;
}

bool TrainSteps::OverwritesInput(int32_t bn_op) const {
  const OpDesc op = g_.op(static_cast<size_t>(bn_op));
  return op.kind == OpKind::kBatchNorm && OnlyReader(op.inputs[0], bn_op);
}

int32_t TrainSteps::InPlaceOutput(int32_t tensor) const {
  for (size_t j = 0; j < g_.num_ops(); ++j) {
    const OpDesc op = g_.op(j);
    if (op.kind == OpKind::kBatchNorm && op.inputs[0] == tensor &&
        InPlaceInput(op.outputs[0]) == tensor)
      return op.outputs[0];
  }
  return -1;
}

int32_t TrainSteps::FirstConsumer(int32_t tensor) const {
  for (size_t j = 0; j < g_.num_ops(); ++j) {
    const OpDesc op = g_.op(j);
    for (uint32_t k = 0; k < op.num_inputs; ++k)
      if (op.inputs[k] == tensor) return static_cast<int32_t>(j);
  }
  return -1;
}

// What each backward in training/backward*.cc reads of the forward values (BatchNorm reads its
// own saved x̂, Conv/Gemm read x only for dW, a fused activation reads the op's output).
bool TrainSteps::BackwardReads(const OpDesc& op, int32_t op_index, int32_t tensor) const {
  if (!RunsBackward(op_index)) return false;
  if (op.outputs[0] == tensor) return BackwardReadsOutput(op);
  if (op.inputs[0] != tensor && !(op.num_inputs > 1 && op.inputs[1] == tensor)) return false;
  const bool first = op.inputs[0] == tensor;
  switch (op.kind) {
    case OpKind::kBatchNorm:
      return first && XhatInPlace(op_index);  // x̂ written over x
    case OpKind::kConv:
    case OpKind::kGemm:
      return first && RoleOf(g_, op.inputs[1], trainable_, head_) == ParamRole::kTrainable;
    case OpKind::kActivation:
    case OpKind::kPRelu:
      return first;
    case OpKind::kPool:
      return first && op.options.pool.kind == kernels::PoolKind::kMax;
    case OpKind::kGlobalPool:
      return first && op.options.global_pool == kernels::PoolKind::kMax;
    case OpKind::kBinary:  // Min/Max compare the operands to route the gradient
      return op.options.binary.kind == kernels::BinaryKind::kMul ||
             op.options.binary.kind == kernels::BinaryKind::kDiv ||
             op.options.binary.kind == kernels::BinaryKind::kMin ||
             op.options.binary.kind == kernels::BinaryKind::kMax;
    default:
      return false;  // ChannelAffine, Concat, Reshape, Transpose, Pad,
                     // DepthToSpace, SpaceToDepth
  }
}

StepSpan TrainSteps::Activation(int32_t tensor) const {
  const int32_t producer = Producer(tensor);
  const int32_t born = std::max<int32_t>(producer, 0);
  const int32_t again = producer >= 0 ? recompute(producer) : -1;
  StepSpan s{born, born, again, again};
  // A use after the recomputation belongs to the second life.
  const auto use = [&](int32_t step) {
    if (again >= 0 && step > again)
      s.again_last = std::max(s.again_last, step);
    else
      s.last = std::max(s.last, step);
  };
  for (size_t j = 0; j < g_.num_ops(); ++j) {
    const OpDesc op = g_.op(j);
    const int32_t i = static_cast<int32_t>(j);
    for (uint32_t k = 0; k < op.num_inputs; ++k) {
      if (op.inputs[k] != tensor) continue;
      use(i);
      if (recompute(i) >= 0) use(recompute(i));
    }
    if (BackwardReads(op, i, tensor)) use(backward(i));
  }
  for (size_t o = 0; o < g_.summary_outputs(); ++o)
    if (g_.output(o) == tensor) use(loss());
  if (tensor == logits_) use(loss());
  return s;
}

StepSpan TrainSteps::Gradient(int32_t tensor) const {
  StepSpan s{whole().last, backward(std::max<int32_t>(Producer(tensor), 0))};
  if (tensor == logits_) s.first = loss();
  for (size_t j = 0; j < g_.num_ops(); ++j) {
    const OpDesc op = g_.op(j);
    const int32_t i = static_cast<int32_t>(j);
    if (i == skipped_op_) continue;
    for (uint32_t k = 0; k < op.num_inputs; ++k)
      if (op.inputs[k] == tensor) s.first = std::min<int32_t>(s.first, backward(i));
  }
  s.first = std::min<int32_t>(s.first, s.last);
  return s;
}

StepSpan TrainSteps::ParameterGradient(int32_t tensor) const {
  StepSpan s{whole().last + 1, 0};
  for (size_t j = 0; j < g_.num_ops(); ++j) {
    const OpDesc op = g_.op(j);
    for (uint32_t k = 0; k < op.num_inputs; ++k) {
      if (op.inputs[k] != tensor) continue;
      s.first = std::min<int32_t>(s.first, backward(static_cast<int32_t>(j)));
      s.last = std::max<int32_t>(s.last, backward(static_cast<int32_t>(j)));
    }
  }
  // Frozen statistics accumulate a parameter's gradient over the step's runs of the graph.
  if (s.first > s.last || g_.summary().frozen_statistics) s = whole();
  return s;
}

}  // namespace edgefold::internal
