// The per-layer table of `edgefold diff` as data (Python's ef.diff): a .efb against its ONNX
// model run by the compiler's float reference (nothing folded or fused), every op output of
// the .efb matched with the ONNX tensor of its name, errors over every run. The same rules as
// tools/cmd_diff.cc (docs/diff.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "validate_report.h"

namespace edgefold::tools {

struct LayerDiff {
  size_t runs = 0, unmatched = 0;  // unmatched: .efb op outputs with no ONNX tensor of the name
  std::vector<LayerReport> layers;
  int first_jump = -1;  // index into layers, -1: none
};

// `inputs`: one float32 .npy path per model input, the leading dim a multiple of its batch.
bool DiffLayers(const std::string& onnx_path, const std::vector<uint8_t>& efb,
                const std::vector<std::string>& inputs, double jump_db, LayerDiff* out,
                std::string* error);

// {"runs": …, "unmatched": …, "first_jump": …, "layers": [{"layer", "type", "tensor", "int8",
// "max_abs", "max_rel", "sqnr_db"}, …]}
std::string LayerDiffJson(const LayerDiff& diff);

}  // namespace edgefold::tools
