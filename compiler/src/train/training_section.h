// The TrainingSection of a model compiled for training, built from the graph's outline:
// each BatchNorm's tensors, the tensors training updates (trainable_set.h), and every
// training buffer's offset, named by role and planned by lifetime. The runtime trainer is the
// authority on which buffers a step needs (ForEachTrainingBuffer); the compiler's planner
// places them; the model writer writes the section.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "edgefold_compiler/training.h"
#include "write/training_section_data.h"

namespace edgefold::compiler {

// The model's bytes with `section` as its training section, written in one writer pass.
using SectionWriter = std::function<std::vector<uint8_t>(const TrainingSectionData&)>;

// Decides and plans the section for the graph `g` under `training`; *efb receives the model
// `write` gives for it. False with `error` on a bad request or a model that cannot train.
bool BuildTrainingSection(const GraphOutline& g, const TrainingOptions& training,
                          const SectionWriter& write, std::vector<uint8_t>* efb,
                          TrainingReport* report, std::string* error);

}  // namespace edgefold::compiler
