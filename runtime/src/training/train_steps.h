// The timeline of one training step, for the lifetimes of its buffers (the compiler plans
// them with its arena planner; see ForEachTrainingBuffer in edgefold/trainer.h):
//   forward of op i at step i, the loss at step n (= num_ops), then the backward segments
//   (backward_segments.h) from the last to the first: a recomputed segment's forward again,
//   one step per op, then its ops' backward in reverse. Without recomputation the backward of
//   op i is at 2n − i. A buffer that must survive from one step to the next (parameters,
//   momentum) spans the whole step.
#pragma once
#include <cstdint>

#include "training/backward_segments.h"
#include "training/trainer_state.h"

namespace edgefold::internal {

struct StepSpan {
  int32_t first, last;
  // A value a recomputed segment computes twice lives twice: [again_first, again_last] is its
  // second life, from its recomputation to its last backward reader (-1: none). The trainer
  // gives each life its own buffer (nothing carries over: the value is computed anew).
  int32_t again_first = -1, again_last = -1;
};

// The smallest span covering both (lives merged one by one).
StepSpan Union(StepSpan a, StepSpan b);

class TrainSteps {
 public:
  TrainSteps(const GraphView& g, Trainable trainable, int32_t logits, int32_t skipped_op);

  int32_t loss() const { return n_; }
  int32_t backward(int32_t op) const;
  // The step where a recomputed segment runs `op`'s forward again, or -1.
  int32_t recompute(int32_t op) const;
  // `op`'s forward step, and its recomputation if any (its scratch's lifetime).
  StepSpan AtForward(int32_t op) const;
  // From `op`'s forward to its backward (a BatchNorm's x̂ and statistics); recomputed, from
  // the forward to itself, then from the recomputation to the backward.
  StepSpan ForwardToBackward(int32_t op) const;
  // The backward stops at the earliest op with a trainable parameter (a sparse update trains
  // only the last layers): no op before it runs a backward, keeps a value for one, or needs
  // the gradient of its output.
  int32_t first_backward() const { return first_backward_; }
  bool RunsBackward(int32_t op) const { return op >= first_backward_ && op != skipped_op_; }
  // A value's gradient is needed when its producer runs a backward (not for the graph input).
  bool NeedsGradient(int32_t tensor) const;
  // A BatchNorm normalizes in place when it is its input's only reader and keeps nothing in
  // that buffer: before the backward's start (the frozen prefix of a sparse update then needs
  // about the memory of inference), or with x̂ saved in 16 bits. Its output shares the input's
  // buffer. InPlaceInput(y) is that input x, InPlaceOutput(x)
  // that output y; -1 otherwise.
  int32_t InPlaceInput(int32_t tensor) const;
  int32_t InPlaceOutput(int32_t tensor) const;
  // A BatchNorm the backward crosses writes x̂ over its input when it is the input's only
  // reader: the input's buffer then lives until the BN's backward, and no x̂ buffer is needed.
  bool XhatInPlace(int32_t bn_op) const;
  // The BN is its input's only reader: its forward may write float32 x̂ over the input.
  bool OverwritesInput(int32_t bn_op) const;
  // A BatchNorm that is its input's only reader writes dx over dy (its backward reads dy[i],
  // x̂[i] before it writes dx[i]): x's gradient then shares y's buffer. GradientSharer(y) is
  // that x, GradientShare(x) that y; -1 otherwise.
  int32_t GradientShare(int32_t x) const;
  int32_t GradientSharer(int32_t y) const;
  StepSpan whole() const { return {0, backward(0)}; }

  // A planned tensor's value: from its producer (step 0 for the graph input) to its last
  // forward reader, the loss (logits, graph outputs), or the earliest backward that reads it.
  StepSpan Activation(int32_t tensor) const;
  // Its gradient: written from the first backward of a consumer (the loss for the logits),
  // read by its producer's backward.
  StepSpan Gradient(int32_t tensor) const;
  // A trainable parameter's gradient: accumulated over its ops' backward, applied by SGD
  // after the last of them (the smallest op index).
  StepSpan ParameterGradient(int32_t tensor) const;
  // The smallest op index reading `tensor` (the last backward to touch it), or -1.
  int32_t FirstConsumer(int32_t tensor) const;
  // The op writing `tensor` (-1 for the graph input and constants).
  int32_t Producer(int32_t tensor) const;
  // The backward segment holding `op` (-1 before the backward's start).
  int32_t segment(int32_t op) const { return segments_.SegmentOf(op); }

 private:
  bool BackwardReads(const OpDesc& op, int32_t op_index, int32_t tensor) const;
  // `x` is a value the graph computes that only `op` reads (not the input, an output, the logits).
  bool OnlyReader(int32_t x, int32_t op) const;
  // The first step of segment k's work after the loss (segments run from the last).
  int32_t SegmentBase(size_t k) const;

  const GraphView& g_;
  Trainable trainable_;
  int32_t head_, logits_, skipped_op_, n_, first_backward_;
  BackwardSegments segments_;
};

}  // namespace edgefold::internal
