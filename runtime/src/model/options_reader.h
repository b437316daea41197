// Translates each op's FlatBuffers options table into the plain OpOptions union.
#pragma once
#include "edgefold/model_generated.h"
#include "base/error_reporter.h"
#include "model/model_types.h"

namespace edgefold::internal {

// Checks array lengths and enum ranges of the options (the verifier checked the bytes).
bool CheckOptions(const fb::Operator* op, ErrorReporter& errors);
// Fills `out` for an op CheckOptions accepted.
void ReadOptions(const fb::Operator* op, OpOptions* out);

}  // namespace edgefold::internal
