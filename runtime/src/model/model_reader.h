// The only runtime module that reads the FlatBuffer: verifies it, checks what the verifier
// cannot (indices, offsets, sizes, option types), and fills the plain structs.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/status.h"
#include "interpreter/error_reporter.h"
#include "model/model_types.h"

namespace edgefold::internal {

constexpr uint32_t kFormatVersion = 1;

struct ModelSummary {
  size_t num_tensors = 0;
  size_t num_ops = 0;
  size_t num_inputs = 0;
  size_t num_outputs = 0;
  size_t planned_arena_bytes = 0;   // activations + scratch, as planned by the compiler
  const int32_t* inputs = nullptr;  // tensor indices, inside the model buffer
  const int32_t* outputs = nullptr;
};

// Verifies `model` and checks every index, offset and size in it. Cheap enough to run at
// every Create; nothing is written.
Status CheckModel(const uint8_t* model, size_t model_bytes, ErrorReporter& errors,
                  ModelSummary* summary);

// Fills tensors[num_tensors] and ops[num_ops] for a model CheckModel accepted; planned
// tensors point into `planned_arena`.
void ReadModel(const uint8_t* model, uint8_t* planned_arena, TensorInfo* tensors, OpDesc* ops);

// One tensor or op at a time (for sizing passes that have no arrays yet). Planned tensors
// get data == planned_arena + offset (nullptr base gives a meaningless pointer: sizes only).
void ReadTensor(const uint8_t* model, size_t index, uint8_t* planned_arena, TensorInfo* out);
void ReadOp(const uint8_t* model, size_t index, uint8_t* planned_arena, OpDesc* out);

}  // namespace edgefold::internal
