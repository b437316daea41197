// Trainer::idle_span: the largest part of the planned buffers that no kept buffer covers.
#include <cstdint>

#include "edgefold/trainer.h"
#include "training/trainer_plan.h"
#include "training/trainer_state.h"

namespace edgefold {
namespace {

// Buffers whose contents a later call reads: parameters (and BN running statistics), SGD
// momenta, the last batch statistics, Refold's W' and b'.
bool Kept(uint8_t kind) {
  switch (static_cast<TrainingBufferKind>(kind)) {
    case TrainingBufferKind::kParameter:
    case TrainingBufferKind::kVelocity:
    case TrainingBufferKind::kStatistics:
    case TrainingBufferKind::kFolded:
      return true;
    default:
      return false;
  }
}

}  // namespace

Trainer::IdleSpan Trainer::idle_span() const {
  IdleSpan span;
  State& s = *state_;
  if (!s.summary.has_training_plan) return span;
  internal::TrainerLayout layout;
  if (internal::PlanTrainer(s.model, s.summary, s.options, s.errors, &layout) != Status::kOk)
    return span;
  uint8_t* const arena = reinterpret_cast<uint8_t*>(state_) - layout.state;
  const size_t n = s.summary.num_planned_buffers, end = s.summary.training_planned_bytes;
  // Candidate starts: the arena's start and every kept buffer's end; a gap runs from a start
  // no kept buffer covers to the next kept buffer's start (quadratic: no heap, a few hundred
  // buffers at most, called once at set-up).
  for (size_t c = 0; c <= n; ++c) {
    size_t start = 0;
    if (c < n) {
      internal::PlannedBuffer b;
      internal::ReadPlannedBuffer(s.model, c, &b);
      if (!Kept(b.kind)) continue;
      start = b.offset + b.bytes;
    }
    size_t stop = end;
    bool covered = false;
    for (size_t i = 0; i < n && !covered; ++i) {
      internal::PlannedBuffer b;
      internal::ReadPlannedBuffer(s.model, i, &b);
      if (!Kept(b.kind)) continue;
      covered = b.offset <= start && start < b.offset + b.bytes;
      if (b.offset >= start && b.offset < stop) stop = b.offset;
    }
    if (!covered && start < stop && stop - start > span.bytes) {
      span.data = arena + start;
      span.bytes = stop - start;
    }
  }
  return span;
}

}  // namespace edgefold
