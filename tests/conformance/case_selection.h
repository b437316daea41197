// Expands tests/conformance/selected_cases.txt into the list of ONNX test case directories.
//
// Format (one entry per line, '#' starts a comment):
//   include <root>/<glob>
//   exclude <root>/<glob>  <reason>
// <root> "golden" maps to the golden data dir, any other root to <onnx_data_dir>/<root>.
// A case is selected when an include matches it and no exclude does. Every entry must match
// at least one directory and every exclude needs a reason; violations are returned in
// `errors` (the test suite fails on them) so the selection cannot silently rot.
#pragma once
#include <string>
#include <vector>

namespace edgefold::conformance {

struct CaseRef {
  std::string id;    // "<root>/<dir name>", e.g. "node/test_relu"
  std::string path;  // absolute case directory (holds model.onnx)
};

struct ExcludedCase {
  std::string id;
  std::string reason;
};

struct Selection {
  std::vector<CaseRef> selected;       // sorted by id
  std::vector<ExcludedCase> excluded;  // matched an include and an exclude
  std::vector<std::string> errors;     // "selected_cases.txt:12: ..." messages
};

Selection LoadSelection(const std::string& selection_file, const std::string& onnx_data_dir,
                        const std::string& golden_data_dir);

// "node/test_conv_with_strides_padding" → "node_test_conv_with_strides_padding".
std::string GTestName(const std::string& id);

}  // namespace edgefold::conformance
