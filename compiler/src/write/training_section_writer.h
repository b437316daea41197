// The writer's half of the training section (section_writer.h is the training code's view):
// the schema's TrainingSection from plain data, and the outline of a lowered model.
#pragma once
#include <cstdint>
#include <vector>

#include "lower/lowered.h"
#include "write/section_writer.h"

namespace edgefold::compiler {

// Format version 3: a model with a training section whose buffers are named by role.
constexpr uint32_t kEfbFormatVersionTraining = 3;

flatbuffers::Offset<fb::TrainingSection> WriteTrainingSection(flatbuffers::FlatBufferBuilder& fbb,
                                                              const TrainingSectionData& section);

GraphOutline OutlineOf(const LoweredModel& model);

}  // namespace edgefold::compiler
