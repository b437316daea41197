// The model's TrainingSection (compile --train), checked once at load: the training batch, the
// trainable list, recompute segments and the training buffers planned by role.
#pragma once
#include "edgefold/status.h"
#include "base/error_reporter.h"
#include "model/model_reader.h"

namespace edgefold::fb {
struct Model;
}

namespace edgefold::internal {

// Fills the training fields of `s` (which holds the graph's counts already). A training
// section in a file older than kFormatVersionTraining (buffers by enumeration order) is
// refused with kUnsupportedVersion, naming the version.
// Training code calls it after CheckModel: inference never reads the section (beyond the
// FlatBuffers verifier), so firmware that only infers links none of these checks.
Status CheckTrainingSection(const fb::Model* m, ModelSummary* s, ErrorReporter& errors);
Status CheckTrainingSection(const uint8_t* model, ModelSummary* s, ErrorReporter& errors);

}  // namespace edgefold::internal
