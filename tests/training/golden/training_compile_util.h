// The training golden tests compile through edgefold_compiler/training.h with the runtime's
// Trainable presets; these adapters keep the tests' calls short.
#pragma once
#include <string>
#include <vector>

#include "edgefold/trainer.h"
#include "edgefold_compiler/training.h"

namespace edgefold::tools {

using compiler::ConfigureTrainingCompile;

inline compiler::TrainableSet CompilerSet(Trainable set) {
  switch (set) {
    case Trainable::kBatchNormAndHead:
      return compiler::TrainableSet::kBatchNormAndHead;
    case Trainable::kAll:
      return compiler::TrainableSet::kAll;
    default:
      return compiler::TrainableSet::kBatchNorm;
  }
}

inline bool AddTrainingSection(std::vector<uint8_t>* efb, Trainable set, std::string* error) {
  compiler::TrainingOptions options;
  options.trainable = CompilerSet(set);
  options.batch = 0;  // the compiled graph's
  return compiler::AddTrainingSection(efb, options, nullptr, error);
}

}  // namespace edgefold::tools
