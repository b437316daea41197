// The per-layer comparison of `edgefold diff` (tools/cmd_diff.cc) and Python's ef.diff: a .efb
// against a reference of its ONNX model (the compiler's float reference, nothing folded or
// fused, or ONNX Runtime's graph outputs), every op output of the .efb matched with the
// reference tensor of its name, errors over every run (docs/diff.md).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "layer_taps.h"
#include "npy.h"
#include "validate_report.h"

namespace edgefold::tools {

struct LayerDiff {
  size_t runs = 0,
         unmatched = 0;  // unmatched: .efb op outputs with no reference tensor of the name
  std::vector<LayerReport> layers;
  int first_jump = -1;  // index into layers, -1: none
};

// The reference's tensors of one run (slice `run` of every input), named as in the ONNX model.
using DiffReference =
    std::function<bool(size_t run, std::vector<LayerValue>* want, std::string* error)>;

// One float32 .npy per input of `efb`, each a whole number of the input's size (one run per
// slice), the same number of runs for every input.
bool LoadDiffInputs(const std::vector<std::string>& paths, Interpreter& efb,
                    std::vector<NpyArray>* inputs, size_t* runs, std::string* error);

// Slice `run` of every input into `interp` (quantized for an int8 input).
bool SetDiffInputs(Interpreter& interp, const std::vector<NpyArray>& inputs, size_t run,
                   std::string* error);

// The compiler's float reference of `onnx_path` opened in `ref`: the ONNX model with nothing
// folded or fused (a QDQ model: its float model), so every ONNX tensor a compiled model keeps
// is an op output here too.
bool OpenFloatReference(const std::string& onnx_path, LayerTaps* ref, std::string* error);
DiffReference FloatReference(LayerTaps& ref, const std::vector<NpyArray>& inputs);

// Every op output of `efb` that has a reference tensor of its name and size, its error over
// `runs` runs, and the first layer whose SQNR falls more than jump_db below every earlier
// layer's (SQNR capped at 100 dB; the first layer: below 20 dB).
bool CompareLayers(const DiffReference& reference, LayerTaps& efb,
                   const std::vector<NpyArray>& inputs, size_t runs, double jump_db, LayerDiff* out,
                   std::string* error);

// All of the above against the float reference. `inputs`: one float32 .npy path per model input.
bool DiffLayers(const std::string& onnx_path, const std::vector<uint8_t>& efb,
                const std::vector<std::string>& inputs, double jump_db, LayerDiff* out,
                std::string* error);

// {"runs": …, "unmatched": …, "first_jump": …, "layers": [{"layer", "type", "tensor", "int8",
// "max_abs", "max_rel", "sqnr_db"}, …]}
std::string LayerDiffJson(const LayerDiff& diff);

}  // namespace edgefold::tools
