// Helpers for the kernel tests: the SIMD tables to compare with the reference, random data
// and a tolerance check that names the first mismatch.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "edgefold/isa.h"
#include "kernels/kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::kernels::testing {

// The non-scalar levels compiled into this build; a test skips the ones this CPU lacks.
inline std::vector<Isa> SimdIsas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon})
    if (KernelTableFor(isa) != nullptr) isas.push_back(isa);
  return isas;
}

inline std::string IsaTestName(const ::testing::TestParamInfo<Isa>& info) {
  std::string name = IsaName(info.param);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

// Base fixture: `table` is the SIMD table under test, the scalar reference is ref::*.
class KernelTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    table_ = KernelTableFor(GetParam());
    if (table_ == nullptr || !IsaAvailable(GetParam())) GTEST_SKIP() << IsaName(GetParam()) << " not available";
  }
  const KernelTable& table() const { return *table_; }
  size_t W() const { return table_->simd_floats; }
  // 1, W−1, W, W+1, 2W+1, a prime, 17×12 and a large odd size.
  std::vector<size_t> AwkwardSizes() const {
    std::vector<size_t> sizes = {1, W() + 1, W(), 2 * W() + 1, 13, 17 * 12, 4099};
    if (W() > 1) sizes.push_back(W() - 1);
    return sizes;
  }

 private:
  const KernelTable* table_ = nullptr;
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
    const bool ok = std::fabs(want[i] - got[i]) <= atol + rtol * std::fabs(want[i]) ||
                    (std::isnan(want[i]) && std::isnan(got[i])) || want[i] == got[i];
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << want.size() << " differ; first at [" << first
                                       << "]: want " << want[first] << ", got " << got[first];
}

// Every activation with parameters that make its branches matter on inputs in [−4, 4].
inline std::vector<Activation> AllActivations() {
  return {{ActKind::kNone, 0, 0},         {ActKind::kRelu, 0, 0},      {ActKind::kClip, -0.5f, 0.6f},
          {ActKind::kLeakyRelu, 0.1f, 0}, {ActKind::kSigmoid, 0, 0},   {ActKind::kHardSigmoid, 0.2f, 0.5f},
          {ActKind::kHardSwish, 0, 0},    {ActKind::kSiLU, 0, 0}};
}

// A build without SIMD tables (Cortex-M, ARMv7 without NEON) instantiates nothing.
#define EDGEFOLD_INSTANTIATE_SIMD(Suite)                                              \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Suite);                              \
  INSTANTIATE_TEST_SUITE_P(Isa, Suite, ::testing::ValuesIn(SimdIsas()), IsaTestName)

}  // namespace edgefold::kernels::testing
