// The checks Trainer::Create makes around placing a trainer (trainer_create.cc).
#pragma once
#include <cstddef>
#include <cstdint>

#include "training/trainer_state.h"

namespace edgefold::internal {

// The Trainer object itself, after the layout (PlanTrainer's total_bytes).
constexpr size_t kTrainerHandleBytes = 64;

// The requested trainable set agrees with the model's, and the graph runs at the training batch.
Status CheckTrainingModel(const uint8_t* model, const ModelSummary& summary, const TrainOptions& train,
                          ErrorReporter& errors);

// After the graph is prepared: one input and one output of logits [N, classes], something to
// train, and a backward for every op (the refusal names the op).
Status CheckTrainingGraph(Trainer::State& s);

}  // namespace edgefold::internal
