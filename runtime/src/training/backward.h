// Backward pass of each op kind: reads the op's saved forward tensors and dY (the gradient of
// its output, already multiplied by the derivative of any fused activation) and accumulates
// into the gradients of its inputs. Gradient buffers that are nullptr are not needed.
#pragma once
#include "training/trainer_state.h"

namespace edgefold::internal {

// Why an op cannot be trained through (nullptr when it can); `g` gives its operands' shapes.
const char* BackwardUnsupportedReason(const OpDesc& op, const GraphView& g);

// dY ← dY · act'(Y) for the op's fused activation, computed from the saved output Y.
void ApplyFusedActivationGrad(const OpDesc& op, const float* y, float* dy, size_t n);

// Accumulates the op's input gradients (and trainable parameter gradients) from dY.
void Backward(Trainer::State& s, size_t op_index);

}  // namespace edgefold::internal
