// The lowered model: schema operators (object API) over numbered tensors, before planning.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "edgefold/model_generated.h"

namespace edgefold::compiler {

struct LoweredTensor {
  std::string name;
  std::vector<int64_t> shape;
  bool is_const = false;
  std::vector<float> data;   // constants only
  int64_t arena_offset = -1; // set by the planner for activations
  int64_t weight_offset = -1;  // set by the writer for constants
  uint64_t bytes = 0;        // shape product × sizeof(float)
};

struct LoweredModel {
  std::vector<LoweredTensor> tensors;
  std::vector<fb::OperatorT> ops;  // topological order; scratch_bytes set, offsets planned later
  std::vector<int> inputs, outputs;
  uint64_t arena_bytes = 0;
  uint64_t arena_lower_bound = 0;
};

}  // namespace edgefold::compiler
