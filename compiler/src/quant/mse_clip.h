// MSE-optimal activation clipping (--quantize-clip mse): the int8 range of a tensor chosen to
// minimize the expected squared error of quantizing its calibration values, clipping error
// and rounding error together. Min/max ranges let one outlier widen the step for every other
// value; percentiles cut a fixed share whatever the tails look like; this weighs both.
#pragma once
#include <vector>

namespace edgefold::compiler::quant {

struct ClipRange {
  double lo = 0, hi = 0;
};

// Over `values` (observed min `min`, max `max`; any order, reordered in place) the range
// [a·min, b·max] (a, b ∈ {1, 0.99, …, 0.02}, widened to hold 0 as ChooseActQuant does) with
// the least error Σ_{x<lo}(lo−x)² + Σ_{x>hi}(x−hi)² + n_in·s²/12: values inside are rounded
// to the step s = (hi−lo)/255 (uniform rounding noise; exact zeros, which Relu makes many of,
// are exact in int8 and add none). Ties keep the wider range. {min, max} for no values.
ClipRange MseClip(std::vector<float>& values, double min, double max);

// The mean squared error of quantizing `values` to int8 over [lo, hi] exactly as the runtime
// does (ChooseActQuant's scale and zero point, round, saturate): how tests judge MseClip.
double QuantizationMse(const std::vector<float>& values, double lo, double hi);

}  // namespace edgefold::compiler::quant
