// Training at a multiple of the graph's batch. `compile --train --batch N` keeps the model's
// graph at its inference batch (1 by default) and records N in the training section; the
// trainer runs every value of the graph with its leading dim scaled by N / graph batch. That
// is exact when each op treats samples independently, which CheckBatchScalable verifies.
#pragma once
#include "training/trainer_state.h"

namespace edgefold::internal {

// A planned tensor (a value of the graph) at the training batch; constants are unchanged.
void ScaleToTrainingBatch(const ModelSummary& s, TensorInfo* t);

// kInvalidModel naming the tensor or op when the graph cannot run at the training batch: a
// value without the batch as its leading dim, or an op that mixes samples (a Transpose moving
// dim 0, a Concat, Softmax, Pad or Slice along it). `g` reads the scaled tensors.
Status CheckBatchScalable(const GraphView& g, ErrorReporter& errors);

}  // namespace edgefold::internal
