// Activation ranges observed on calibration data: per tensor of the float model, the min and
// max over every run, and the clipping range the quantizer uses (min/max, the P-th
// percentiles with --quantize-percentile P, or the MSE-optimal range with --quantize-clip mse).
#pragma once
#include <vector>

#include "quant/probe.h"

namespace edgefold::compiler::quant {

struct Range {
  bool observed = false;
  double min = 0, max = 0;  // over all calibration values
  double lo = 0, hi = 0;    // the clipping range: [min, max] or the percentiles
};

// One Range per tensor of `model` (constants: not observed). The graph's first input is
// observed from the samples themselves. percentile ∈ (50, 100]; 100 = min/max; mse: MseClip
// over the tensor's values (percentile then unused). Throws
// CompileError naming the model when the runtime cannot run it.
std::vector<Range> ObserveRanges(const LoweredModel& model, const Samples& samples,
                                 double percentile, bool mse, const std::string& name);

}  // namespace edgefold::compiler::quant
