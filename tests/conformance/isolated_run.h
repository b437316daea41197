// Runs one case in a forked child so that a crash or hang in the compiler or runtime fails
// that case alone (with the signal named) instead of killing the whole conformance suite.
#pragma once
#include <string>

#include "onnx_case_runner.h"

namespace edgefold::conformance {

// The child gets `timeout_seconds` (SIGALRM) before it is reported as hung.
CaseOutcome RunCaseIsolated(const std::string& case_dir, const std::string& case_id,
                            const RunOptions& options, unsigned timeout_seconds = 120);

}  // namespace edgefold::conformance
