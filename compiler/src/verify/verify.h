// Numerical check: runs two compiled models on the same seeded random inputs with the
// edgefold runtime and compares their outputs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::compiler {

struct VerifyOutcome {
  bool ran = false;  // false when this build has no runtime, or it failed (see error)
  std::string error;
  double max_abs_error = 0;  // max |a−b| over all outputs
  double max_rel_error = 0;  // max_abs_error / max(1, max|reference|)
};

bool RuntimeAvailable();
VerifyOutcome CompareModels(const std::vector<uint8_t>& reference,
                            const std::vector<uint8_t>& candidate, uint32_t seed);

}  // namespace edgefold::compiler
