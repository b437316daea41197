// Helpers for the training-kernel tests: the training tables under test, their awkward sizes
// and the error measures of the BatchNorm checks.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/train_kernel_table.h"
#include "kernels/train_reference.h"
#include "testing/isa_test_util.h"

namespace edgefold::kernels::testing {

// Lanes per float register of a level (the W of the awkward sizes).
inline size_t LanesOf(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return 16;
    case Isa::kAvx2Fma:
      return 8;
    case Isa::kSse42:
    case Isa::kNeon:
      return 4;
    default:
      return 1;
  }
}

inline std::vector<Isa> SimdTrainIsas() { return SimdIsasWith(&TableFor<TrainKernelTable>); }

// Scalar plus every SIMD level (the finite-difference and golden tests run on all of them).
inline std::vector<Isa> AllTrainIsas() {
  std::vector<Isa> isas = {Isa::kScalar};
  for (Isa isa : SimdTrainIsas()) isas.push_back(isa);
  return isas;
}

// Fixture: `table()` is the training table of the level under test.
class TrainKernelTest : public IsaTableTest<TrainKernelTable, &TableFor<TrainKernelTable>> {
 protected:
  size_t W() const { return LanesOf(GetParam()); }
  // 1, W−1, W, W+1, a prime (13), 2W+3 and a large odd size (spatial or channel counts).
  std::vector<size_t> AwkwardSizes() const {
    std::vector<size_t> sizes = {1, W(), W() + 1, 13, 2 * W() + 3, 1031};
    if (W() > 1) sizes.push_back(W() - 1);
    return sizes;
  }
};

// Training kernels never expect NaN: one in the reference is a mismatch.
inline ::testing::AssertionResult AllClose(const std::vector<float>& want,
                                           const std::vector<float>& got, float atol = 1e-6f,
                                           float rtol = 1e-5f) {
  return AllCloseWith(NanInWant::kIsAMismatch, want, got, atol, rtol);
}

// max |a − b| / max(max |b|, floor): the error relative to the scale of the reference.
inline double ScaledMaxError(const std::vector<double>& got, const std::vector<double>& want,
                             double floor = 1e-30) {
  double err = 0.0, scale = floor;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return err / scale;
}

// The natural scale of BN's dx: max |γ_c·inv_std_c·dy|. dx = γ·inv_std/m·(m·dy − Σdy − xhat·Σdy·xhat)
// is a difference of terms of this size; for m = 2 they cancel to O(eps/σ²) of it (xhat = ±1
// up to eps), so dx errors are measured against this scale, not against max|dx|.
inline double BnDxScale(const std::vector<float>& dy, const std::vector<float>& gamma,
                        const std::vector<float>& inv_std, size_t batch, size_t channels,
                        size_t spatial) {
  double scale = 0.0;
  for (size_t n = 0; n < batch; ++n)
    for (size_t c = 0; c < channels; ++c)
      for (size_t s = 0; s < spatial; ++s)
        scale = std::max(
            scale, std::fabs(double(gamma[c]) * inv_std[c] * dy[(n * channels + c) * spatial + s]));
  return scale;
}

}  // namespace edgefold::kernels::testing
