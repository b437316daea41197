// InputStatistics (compiler.h): σ_c² = (1/(N·S)) Σ_n Σ_s (x[n,c,s] − μ_c)², μ_c = (1/(N·S)) Σ x[n,c,s].
#include <cmath>
#include <string>
#include <vector>

#include "edgefold_compiler/compiler.h"

namespace edgefold::compiler {

bool InputStatistics(const float* x, size_t samples, size_t channels, size_t spatial,
                     std::vector<float>* mean, std::vector<float>* std_dev, std::string* error) {
  const size_t count = samples * spatial;
  if (x == nullptr || count == 0 || channels == 0) {
    *error = "input statistics need at least one sample with one value per channel";
    return false;
  }
  mean->assign(channels, 0.0f);
  std_dev->assign(channels, 0.0f);
  for (size_t c = 0; c < channels; ++c) {
    double sum = 0;
    for (size_t n = 0; n < samples; ++n) {
      const float* row = x + (n * channels + c) * spatial;
      for (size_t s = 0; s < spatial; ++s) sum += row[s];
    }
    const double mu = sum / static_cast<double>(count);
    double squares = 0;
    for (size_t n = 0; n < samples; ++n) {
      const float* row = x + (n * channels + c) * spatial;
      for (size_t s = 0; s < spatial; ++s) squares += (row[s] - mu) * (row[s] - mu);
    }
    const double sigma = std::sqrt(squares / static_cast<double>(count));
    if (!std::isfinite(mu) || !std::isfinite(sigma)) {
      *error = "channel " + std::to_string(c) + " of the input data holds NaN or Inf";
      return false;
    }
    if (!(sigma > 0)) {
      *error = "channel " + std::to_string(c) + " of the input data is constant (" +
               std::to_string(mu) + "): its standard deviation is 0";
      return false;
    }
    (*mean)[c] = static_cast<float>(mu);
    (*std_dev)[c] = static_cast<float>(sigma);
  }
  return true;
}

}  // namespace edgefold::compiler
