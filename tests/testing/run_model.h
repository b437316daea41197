// Runs a serialized model once on given inputs and returns its outputs (test convenience).
#pragma once
#include <string>
#include <vector>

#include "edgefold/interpreter.h"

namespace edgefold::testing {

struct RunResult {
  Status status = Status::kOk;
  std::string log;  // every message the runtime reported
  std::vector<std::vector<float>> outputs;
};

// int8 inputs (a model compiled with --io int8) are quantized with QuantizeInput, int8 outputs
// dequantized with DequantizeOutput.
// resolver: Options::resolver (nullptr: every op of this build).
RunResult RunModel(const std::vector<uint8_t>& model, const std::vector<std::vector<float>>& inputs,
                   Isa isa = Isa::kAuto, const OpResolver* resolver = nullptr);

// Every ISA level available on this machine (scalar first).
std::vector<Isa> AvailableIsas();

}  // namespace edgefold::testing
