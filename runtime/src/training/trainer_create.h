// The checks Trainer::Create makes around placing a trainer (trainer_create.cc).
#pragma once
#include <cstddef>
#include <cstdint>

#include "training/trainer_state.h"

namespace edgefold::internal {

// The Trainer object itself, after the layout (PlanTrainer's total_bytes).
constexpr size_t kTrainerHandleBytes = 64;

// Everything a training step needs of the model, checked before anything is placed (so that
// RequiredTrainingArenaBytes refuses what Create would): the requested trainable set agrees
// with the model's, the graph runs at the training batch, one input and one output of logits
// [N, classes], something to train, a backward for every op (the refusal names the op).
Status CheckTrainingModel(const uint8_t* model, const ModelSummary& summary,
                          const TrainOptions& train, ErrorReporter& errors);

// The placed graph's input, logits, batch, classes and chunks (CheckTrainingModel passed).
void ReadTrainingShape(Trainer::State& s);

}  // namespace edgefold::internal
