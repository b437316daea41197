// What training updates, decided in the compiler as a pure function of the graph: the
// tensors of a preset (--trainable), cut to a sparse update (--train-from, --trainable-last).
// The runtime trainer reads the list from the model's training section (Trainable::kModel).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "edgefold_compiler/training.h"
#include "write/training_section_data.h"

namespace edgefold::compiler {

// The constant tensors `set` trains: γ and β of every BatchNorm; with kBatchNormAndHead the
// weights and bias of the last Conv or Gemm (the head); with kAll of every Conv and Gemm.
std::vector<int32_t> TrainableTensors(const GraphOutline& g, TrainableSet set);

// The first operator a sparse update trains: named by --train-from (node or output name), or
// the K-th BatchNorm from the end; 0 when the whole network trains, -1 (with `error`) on a
// bad request.
int FirstTrainedOp(const GraphOutline& g, const TrainingOptions& t, std::string* error);

// The tensors of `tensors` that an op at or after `first_op` reads.
std::vector<int32_t> TrainedFrom(const GraphOutline& g, const std::vector<int32_t>& tensors,
                                 int first_op);

}  // namespace edgefold::compiler
