#include "quant/mse_clip.h"

#include <algorithm>
#include <cmath>

#include "quant/quant_math.h"

namespace edgefold::compiler::quant {
namespace {

constexpr int kSteps = 50;  // a, b = 1 − i/kSteps·0.98: 1, 0.9804, …, 0.02
constexpr double kMinShare = 0.02;

// Prefix sums over the sorted values: the clipping error of any tail in O(log n).
struct Tails {
  std::vector<double> s1, s2;  // s1[i] = Σ_{j<i} x_j, s2[i] = Σ_{j<i} x_j²
  const std::vector<float>& x;

  explicit Tails(const std::vector<float>& sorted)
      : s1(sorted.size() + 1), s2(sorted.size() + 1), x(sorted) {
    for (size_t i = 0; i < sorted.size(); ++i) {
      s1[i + 1] = s1[i] + sorted[i];
      s2[i + 1] = s2[i] + double(sorted[i]) * sorted[i];
    }
  }
  size_t Below(double v) const {
    return static_cast<size_t>(std::lower_bound(x.begin(), x.end(), v) - x.begin());
  }
  size_t AtMost(double v) const {
    return static_cast<size_t>(std::upper_bound(x.begin(), x.end(), v) - x.begin());
  }
  // Σ (x − c)² over indices [i, j).
  double Squares(size_t i, size_t j, double c) const {
    const double n = static_cast<double>(j - i);
    return (s2[j] - s2[i]) - 2.0 * c * (s1[j] - s1[i]) + c * c * n;
  }
};

}  // namespace

ClipRange MseClip(std::vector<float>& values, double min, double max) {
  if (values.empty() || !(max > min)) return {min, max};
  std::sort(values.begin(), values.end());
  const Tails t(values);
  const size_t n = values.size();
  const size_t zeros = t.AtMost(0.0) - t.Below(0.0);
  ClipRange best{min, max};
  double best_error = -1;
  for (int i = 0; i <= kSteps; ++i) {
    const double a = 1.0 - (1.0 - kMinShare) * i / kSteps;
    const double lo = std::min(0.0, min * a);
    if (i > 0 && !(min < 0)) break;  // nothing below 0 to clip
    for (int j = 0; j <= kSteps; ++j) {
      const double b = 1.0 - (1.0 - kMinShare) * j / kSteps;
      const double hi = std::max(0.0, max * b);
      if (j > 0 && !(max > 0)) break;
      const ActQuant q = ChooseActQuant(lo, hi);
      const double step = q.scale;
      const size_t below = t.Below(lo), above = t.AtMost(hi);
      const double inside = static_cast<double>(above - below) - static_cast<double>(zeros);
      const double error = t.Squares(0, below, lo) + t.Squares(above, n, hi) +
                           std::max(0.0, inside) * step * step / 12.0;
      if (best_error < 0 || error < best_error) {
        best_error = error;
        best = {lo, hi};
      }
    }
  }
  return best;
}

double QuantizationMse(const std::vector<float>& values, double lo, double hi) {
  if (values.empty()) return 0;
  const ActQuant q = ChooseActQuant(lo, hi);
  double sum = 0;
  for (float v : values) {
    const double r = (QuantizeValue(v, q) - q.zero_point) * static_cast<double>(q.scale) - v;
    sum += r * r;
  }
  return sum / static_cast<double>(values.size());
}

}  // namespace edgefold::compiler::quant
