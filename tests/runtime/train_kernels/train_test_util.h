// Helpers for the training-kernel tests: the tables under test, random data and a tolerance
// check that names the first mismatch.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "edgefold/isa.h"
#include "kernels/train_kernel_table.h"
#include "kernels/train_reference.h"

namespace edgefold::kernels::testing {

// Lanes per float register of a level (the W of the awkward sizes).
inline size_t LanesOf(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return 16;
    case Isa::kAvx2Fma: return 8;
    case Isa::kSse42:
    case Isa::kNeon: return 4;
    default: return 1;
  }
}

// The non-scalar levels compiled into this build; a test skips the ones this CPU lacks.
inline std::vector<Isa> SimdTrainIsas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon})
    if (TrainKernelTableFor(isa) != nullptr) isas.push_back(isa);
  return isas;
}

// Scalar plus every SIMD level (the finite-difference and golden tests run on all of them).
inline std::vector<Isa> AllTrainIsas() {
  std::vector<Isa> isas = {Isa::kScalar};
  for (Isa isa : SimdTrainIsas()) isas.push_back(isa);
  return isas;
}

inline std::string IsaTestName(const ::testing::TestParamInfo<Isa>& info) {
  std::string name = IsaName(info.param);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

// Fixture: `table()` is the training table of the level under test.
class TrainKernelTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    table_ = TrainKernelTableFor(GetParam());
    if (table_ == nullptr || !IsaAvailable(GetParam())) GTEST_SKIP() << IsaName(GetParam()) << " not available";
  }
  const TrainKernelTable& table() const { return *table_; }
  size_t W() const { return LanesOf(GetParam()); }
  // 1, W−1, W, W+1, a prime (13), 2W+3 and a large odd size (spatial or channel counts).
  std::vector<size_t> AwkwardSizes() const {
    std::vector<size_t> sizes = {1, W(), W() + 1, 13, 2 * W() + 3, 1031};
    if (W() > 1) sizes.push_back(W() - 1);
    return sizes;
  }

 private:
  const TrainKernelTable* table_ = nullptr;
};

inline std::vector<float> RandomVector(size_t n, float lo = -1.0f, float hi = 1.0f, unsigned seed = 1) {
  std::mt19937 gen(seed + static_cast<unsigned>(n) * 7919u);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// |want − got| ≤ atol + rtol·|want| for every element; reports the first failure and the count.
inline ::testing::AssertionResult AllClose(const std::vector<float>& want, const std::vector<float>& got,
                                           float atol = 1e-6f, float rtol = 1e-5f) {
  if (want.size() != got.size()) return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool ok = std::fabs(want[i] - got[i]) <= atol + rtol * std::fabs(want[i]) || want[i] == got[i];
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << want.size() << " differ; first at [" << first
                                       << "]: want " << want[first] << ", got " << got[first];
}

// max |a − b| / max(max |b|, floor): the error relative to the scale of the reference.
inline double ScaledMaxError(const std::vector<double>& got, const std::vector<double>& want, double floor = 1e-30) {
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
inline double BnDxScale(const std::vector<float>& dy, const std::vector<float>& gamma, const std::vector<float>& inv_std,
                        size_t batch, size_t channels, size_t spatial) {
  double scale = 0.0;
  for (size_t n = 0; n < batch; ++n)
    for (size_t c = 0; c < channels; ++c)
      for (size_t s = 0; s < spatial; ++s)
        scale = std::max(scale, std::fabs(double(gamma[c]) * inv_std[c] * dy[(n * channels + c) * spatial + s]));
  return scale;
}

#define EDGEFOLD_INSTANTIATE_TRAIN(Suite, isas)                                    \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Suite);                           \
  INSTANTIATE_TEST_SUITE_P(Isa, Suite, ::testing::ValuesIn(isas), IsaTestName)

}  // namespace edgefold::kernels::testing
