// Runs a lowered model with the edgefold runtime on calibration samples and hands every
// output of every run to a callback: how the quantizer observes activation ranges and how the
// report compares int8 with float.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "lower/lowered.h"

namespace edgefold::compiler::quant {

// Calibration data: `count` runs of the graph's first input, each `run_elems` floats.
struct Samples {
  const float* data = nullptr;
  size_t count = 0;
  size_t run_elems = 0;
};

using OutputFn = std::function<void(size_t run, size_t output, const float* data, size_t elems)>;

// Plans and writes a copy of `model` whose graph outputs are `outputs` (planned tensors), then
// invokes it once per sample. Returns "" or the runtime's error.
std::string RunSamples(LoweredModel model, const std::vector<int>& outputs, const Samples& samples,
                       const OutputFn& fn);

}  // namespace edgefold::compiler::quant
