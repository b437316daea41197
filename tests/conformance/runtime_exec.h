// Runs compiled .efb bytes once with the edgefold runtime, the way firmware would: the model
// copied to a 64-byte aligned buffer, an aligned arena of exactly RequiredArenaBytes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "edgefold/isa.h"

namespace edgefold::conformance {

struct NamedTensor {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<float> values;
};

struct ExecResult {
  bool ok = false;
  std::string stage;                 // create, set_input, invoke (on failure)
  std::string message;               // status name plus the runtime's log lines
  std::vector<NamedTensor> outputs;  // in the runtime's output order
  size_t arena_bytes = 0;
};

// Inputs are matched to the runtime's inputs by name (by position if the runtime reports
// no names). Every runtime input must be supplied with a matching element count.
ExecResult ExecuteModel(const std::vector<uint8_t>& efb, const std::vector<NamedTensor>& inputs,
                        Isa isa);

}  // namespace edgefold::conformance
