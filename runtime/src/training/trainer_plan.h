// Plan, then place (TFLM's allocator lesson). PlanTrainer is pure: from the model alone it
// computes where everything of a Trainer goes in its arena and checks the model's planned
// buffers against the trainer's own (trainer_buffers.h); PlaceTrainer then commits that
// layout in one straight pass.
//
// The arena: the training buffers first (at the offsets the compiler planned by lifetime,
// found by role; or one after the other for a model without a plan), then State and its
// records at the offsets of TrainerLayout.
#pragma once
#include <cstddef>

#include "training/trainer_state.h"

namespace edgefold::internal {

// Offsets (bytes from the arena's start) and counts of the trainer's records.
struct TrainerLayout {
  size_t buffer_bytes = 0;  // the planned bytes, or every buffer one after the other
  size_t state = 0, tensors = 0, ops = 0, op_kernels = 0, exec = 0, op_col = 0, op_dcol = 0;
  size_t grads = 0, grad_starts = 0, params = 0, bns = 0, folded_ops = 0, folded_io = 0,
         switches = 0;
  size_t num_tensors = 0;  // the model's, and with refolding two per BatchNorm (W', b')
  size_t num_params = 0;   // constants copied into the arena (RoleOf != kNone)
  size_t num_bns = 0;
  size_t num_folded = 0;    // BatchNorms Refold folds into their producer
  size_t max_switches = 0;  // PointerSwitch entries (compile --recompute)
  size_t total_bytes = 0;   // the whole layout, 64-byte rounded
};

// The layout of a trainer on `model` (CheckModel accepted it as `s`). kInvalidModel naming
// the buffer (its kind and op or tensor) when the model's planned buffers are not exactly
// the trainer's, by role and size.
Status PlanTrainer(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                   ErrorReporter& errors, TrainerLayout* out);

// Commits `layout` (PlanTrainer's for the same model and options) in `arena`: State and its
// records, the graph read from the model, parameters copied out of it, every buffer at its
// place. Cannot fail; ops are not prepared yet.
Trainer::State* PlaceTrainer(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                             const TrainerLayout& layout, uint8_t* arena);

// The offset the model's plan gives the buffer of role `b`, or SIZE_MAX when it names none of
// that role and size.
size_t PlannedOffset(const uint8_t* model, const ModelSummary& s, const TrainingBuffer& b);

}  // namespace edgefold::internal
