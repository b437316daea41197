#include <algorithm>
#include <cmath>

#include "kernels/reference.h"

namespace edgefold::kernels::ref {
namespace {

// Columns reduced together when inner > 1: the len rows are read in runs of this many values,
// not with the stride `inner` (an outer-axis reduction would touch one value per cache line).
constexpr size_t kRefBlock = 64;

// acc ⊕ v in double; Max keeps the first NaN.
inline double Fold(ReduceKind kind, double acc, double v) {
  switch (kind) {
    case ReduceKind::kMax:
      return (std::isnan(v) || v > acc) && !std::isnan(acc) ? v : acc;
    case ReduceKind::kSumSquare:
      return acc + v * v;
    default:
      return acc + v;
  }
}

inline float Finish(ReduceKind kind, double acc, size_t len) {
  return static_cast<float>(kind == ReduceKind::kMean ? acc / static_cast<double>(len) : acc);
}

}  // namespace

// y[o,i] = reduce_a x[o,a,i]; sums in double so the oracle's own rounding is negligible.
void Reduce(ReduceKind kind, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  const double init = kind == ReduceKind::kMax ? -INFINITY : 0.0;
  for (size_t o = 0; o < outer; ++o) {
    if (inner == 1) {
      double acc = init;
      for (size_t a = 0; a < len; ++a) acc = Fold(kind, acc, x[o * len + a]);
      y[o] = Finish(kind, acc, len);
      continue;
    }
    for (size_t i0 = 0; i0 < inner; i0 += kRefBlock) {
      const size_t cols = std::min(kRefBlock, inner - i0);
      double acc[kRefBlock];
      std::fill(acc, acc + cols, init);
      for (size_t a = 0; a < len; ++a) {
        const float* xs = x + (o * len + a) * inner + i0;
        for (size_t j = 0; j < cols; ++j) acc[j] = Fold(kind, acc[j], xs[j]);
      }
      for (size_t j = 0; j < cols; ++j) y[o * inner + i0 + j] = Finish(kind, acc[j], len);
    }
  }
}

}  // namespace edgefold::kernels::ref
