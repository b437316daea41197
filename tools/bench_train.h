// edgefold bench --train: the time of one training step (Trainer::TrainStep: forward with batch
// statistics, loss, backward, SGD) of a model compiled with --train, on random inputs and labels.
#pragma once
#include <string>
#include <vector>

#include "edgefold/interpreter.h"

namespace edgefold::tools {

struct TrainBenchResult {
  std::vector<double> ms;  // sorted step times
  size_t arena_bytes = 0;
  size_t batch = 0;
  std::string isa;
};

bool TimeTrainSteps(const std::string& path, Isa isa, int warmup, int runs, TrainBenchResult* out,
                    std::string* error);

}  // namespace edgefold::tools
