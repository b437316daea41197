#include "quant/weights_int8.h"

#include <algorithm>
#include <cmath>

#include "error.h"

namespace edgefold::compiler::quant {

std::vector<int8_t> QuantizeWeights(const std::vector<float>& w, size_t channels, size_t per,
                                    int q_max, std::vector<float>* scales) {
  std::vector<int8_t> q(w.size());
  scales->assign(channels, 1.0f);
  const double top = q_max;
  for (size_t c = 0; c < channels; ++c) {
    double amax = 0;
    for (size_t k = 0; k < per; ++k)
      amax = std::max(amax, std::fabs(static_cast<double>(w[c * per + k])));
    if (amax > 0) (*scales)[c] = static_cast<float>(amax / top);
    for (size_t k = 0; k < per; ++k)
      q[c * per + k] = static_cast<int8_t>(std::max(
          -top, std::min(top, std::round(w[c * per + k] / static_cast<double>((*scales)[c])))));
  }
  return q;
}

std::vector<int8_t> WeightsAtModelScales(const std::vector<float>& w, size_t channels, size_t per,
                                         const ModelWeightScales& given, const std::string& node,
                                         std::vector<float>* scales) {
  if (given.scale.size() != channels)
    throw CompileError("node '" + node + "': the model gives " +
                       std::to_string(given.scale.size()) + " weight scales for " +
                       std::to_string(channels) + " output channels");
  std::vector<int8_t> q(w.size());
  scales->resize(channels);
  for (size_t c = 0; c < channels; ++c) {
    double amax = 0;
    for (size_t k = 0; k < per; ++k)
      amax = std::max(amax, std::fabs(static_cast<double>(w[c * per + k])));
    const double unfolded = static_cast<double>(given.max_abs_q[c]) * given.scale[c];
    const double ratio = unfolded > 0 && amax > 0 ? amax / unfolded : 1.0;
    (*scales)[c] =
        std::fabs(ratio - 1.0) < 1e-6 ? given.scale[c] : static_cast<float>(given.scale[c] * ratio);
    bool fits = true;
    for (size_t k = 0; k < per && fits; ++k) {
      const double v = std::round(w[c * per + k] / static_cast<double>((*scales)[c]));
      fits = v >= -128.0 && v <= 127.0;
    }
    // Asymmetric weights (uint8, zero point far from 128) can leave int8 once centred: that
    // channel is quantized by max |w| / 127 instead.
    if (!fits) (*scales)[c] = static_cast<float>(amax / 127.0);
    for (size_t k = 0; k < per; ++k)
      q[c * per + k] = static_cast<int8_t>(std::max(
          -128.0, std::min(127.0, std::round(w[c * per + k] / static_cast<double>((*scales)[c])))));
  }
  return q;
}

}  // namespace edgefold::compiler::quant
