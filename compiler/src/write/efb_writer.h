// Serializes a planned LoweredModel into .efb bytes (FlatBuffer, identifier EFB1).
#pragma once
#include <cstdint>
#include <vector>

#include "lower/lowered.h"
#include "write/training_section_data.h"

namespace edgefold::compiler {

constexpr uint32_t kEfbFormatVersion = 1;
constexpr uint32_t kEfbFormatVersionInt8 = 2;  // written only for models with int8 tensors

// Places every constant at a 64-byte aligned offset of one 64-byte aligned weights blob
// (setting weight_offset), builds the buffer and runs the FlatBuffers verifier on it.
// `weight_bytes` receives the blob size. With `training`, the model's training section is
// written in the same pass (format version 3). Throws CompileError if verification fails.
std::vector<uint8_t> WriteEfb(LoweredModel* model, uint64_t* weight_bytes,
                              const TrainingSectionData* training = nullptr);

}  // namespace edgefold::compiler
