// Every buffer of a training step, named by role (edgefold::TrainingBuffer: kind, owner, index,
// life), with its size and lifetime. The one list that the compiler's planner (through
// ForEachTrainingBuffer), the check of a model's plan (PlanTrainer) and the placing pass
// (PlaceTrainer) read. Pure: it reads the graph and writes nothing.
#pragma once
#include <cstddef>
#include <cstdint>

#include "training/train_steps.h"

namespace edgefold::internal {

// The graph (read from the model, at the training batch) and its training timeline.
struct BufferContext {
  const GraphView& g;
  const TrainSteps& steps;
  Trainable trainable;
  int32_t head;  // FindHeadOp
};

// Calls visit once per buffer: the values (and their gradients), the parameter copies (their
// gradients and momenta), each BatchNorm's x̂, statistics, frozen dγ dβ and folded weights,
// each op's scratch and im2col columns, and temp. A recomputed value's two lives come one
// after the other, life 0 first. Roles are unique; their order carries no meaning.
void ForEachTrainerBuffer(const BufferContext& c, TrainingBufferFn visit, void* user);

// A BatchNorm's channels: dim 1 of its input x (1 below rank 2).
size_t BatchNormChannels(const TensorInfo& x);

// The graph of `model` at the training batch, its timeline and trainable set, handed to `fn`
// as a BufferContext (which refers to locals of this call).
template <class Fn>
void WithBufferContext(const uint8_t* model, const ModelSummary& s, Trainable trainable, Fn&& fn) {
  const GraphView g(model, s);
  int32_t logits = -1, skipped_op = -1;
  FindLogits(g, &logits, &skipped_op);
  const TrainSteps steps(g, trainable, logits, skipped_op);
  fn(BufferContext{g, steps, trainable, FindHeadOp(g)});
}

}  // namespace edgefold::internal
