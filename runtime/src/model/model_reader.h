// The only runtime module that reads the FlatBuffer: verifies it, checks what the verifier
// cannot (indices, offsets, sizes, option types), and fills the plain structs.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/status.h"
#include "base/error_reporter.h"
#include "model/model_types.h"

namespace edgefold::internal {

// Version 1: float models; version 2: models with int8 tensors (the only ones written so);
// version 3: models with a training section whose buffers are named by role (a training
// section in an older file is refused).
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kFormatVersionInt8 = 2;
constexpr uint32_t kFormatVersionTraining = 3;

struct ModelSummary {
  bool int8_format = false;  // format version 2: int8/int32 tensors allowed
  size_t num_tensors = 0;
  size_t num_ops = 0;
  size_t num_inputs = 0;
  size_t num_outputs = 0;
  size_t planned_arena_bytes = 0;   // activations + scratch, as planned by the compiler
  const int32_t* inputs = nullptr;  // tensor indices, inside the model buffer
  const int32_t* outputs = nullptr;
  // The training section's trainable tensors (compile --train --trainable), checked to be
  // constant tensors; has_trainable_list is false for models without one.
  bool has_trainable_list = false;
  const int32_t* trainable = nullptr;
  size_t num_trainable = 0;
  // The training buffers planned by role (compile --train: ReadPlannedBuffer); has_training_plan
  // is false when the model has none, and the trainer then lays its buffers out one after the other.
  bool has_training_plan = false;
  size_t num_planned_buffers = 0;
  size_t training_planned_bytes = 0;
  // Trainer::Refold writes folded weight copies (models without a training section: yes).
  bool refold_weights = true;
  // The training batch over the graph's own (inference) batch: the trainer runs every value
  // of the graph with its leading dim times this (training/train_batch.h). 1 when they agree.
  size_t training_batch_scale = 1;
  // Frozen statistics (TrainingSection.frozen_statistics): the trainer loops the graph
  // training_batch_scale times per step instead of scaling it.
  bool frozen_statistics = false;
  // TrainingSection.new_classes: the classifier's last outputs the trainer initializes.
  int32_t new_classes = 0;
  // TrainingSection.saved_precision: 0 float32, 1 float16, 2 bfloat16 (saved_precision.h).
  uint8_t saved_precision = 0;
  // TrainingSection.recompute_segments: the first op of each backward segment (ascending, in
  // (0, num_ops)); the trainer re-runs every segment but the last before its backward.
  const int32_t* recompute_segments = nullptr;
  size_t num_recompute_segments = 0;
};

// Verifies `model` and checks every index, offset and size in it. Cheap enough to run at
// every Create; nothing is written.
Status CheckModel(const uint8_t* model, size_t model_bytes, ErrorReporter& errors,
                  ModelSummary* summary);

// Fills tensors[num_tensors] and ops[num_ops] for a model CheckModel accepted; planned
// tensors point into `planned_arena`.
void ReadModel(const uint8_t* model, uint8_t* planned_arena, TensorInfo* tensors, OpDesc* ops);

// One tensor or op at a time (for sizing passes that have no arrays yet). Planned tensors
// get data == planned_arena + offset, and ops their scratch so (nullptr when planned_arena is).
void ReadTensor(const uint8_t* model, size_t index, uint8_t* planned_arena, TensorInfo* out);
void ReadOp(const uint8_t* model, size_t index, uint8_t* planned_arena, OpDesc* out);

// A training buffer the compiler planned (TrainingSection.buffers), named by role: kind is an
// edgefold::TrainingBufferKind value; offset and bytes are checked by CheckModel (64-byte
// aligned, inside training_planned_bytes, kind known, (kind, owner, index, life) unique).
struct PlannedBuffer {
  uint8_t kind = 0;
  int32_t owner = -1;
  uint8_t index = 0, life = 0;
  size_t offset = 0, bytes = 0;
};
// Buffer i < ModelSummary::num_planned_buffers of a model CheckModel accepted.
void ReadPlannedBuffer(const uint8_t* model, size_t i, PlannedBuffer* out);

}  // namespace edgefold::internal
