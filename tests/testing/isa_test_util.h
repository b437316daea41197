// Shared by the kernel and training-kernel tests: the ISA levels a table exists for, a fixture
// that skips levels this CPU lacks, random data and a tolerance check naming the first mismatch.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "edgefold/isa.h"

namespace edgefold::kernels::testing {

// The non-scalar levels `table_for` has a table for in this build (a test skips the ones this
// CPU lacks).
template <class Table>
std::vector<Isa> SimdIsasWith(const Table* (*table_for)(Isa)) {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon})
    if (table_for(isa) != nullptr) isas.push_back(isa);
  return isas;
}

inline std::string IsaTestName(const ::testing::TestParamInfo<Isa>& info) {
  std::string name = IsaName(info.param);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

// Fixture over one ISA level: `table()` is the table `table_for` gives for it.
template <class Table, const Table* (*table_for)(Isa)>
class IsaTableTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    table_ = table_for(GetParam());
    if (table_ == nullptr || !IsaAvailable(GetParam()))
      GTEST_SKIP() << IsaName(GetParam()) << " not available";
  }
  const Table& table() const { return *table_; }

 private:
  const Table* table_ = nullptr;
};

inline std::vector<float> RandomVector(size_t n, float lo = -1.0f, float hi = 1.0f,
                                       unsigned seed = 1) {
  std::mt19937 gen(seed + static_cast<unsigned>(n) * 7919u);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

enum class NanInWant { kMustMatchNan, kIsAMismatch };

// |want − got| ≤ atol + rtol·|want| (or want == got) for every element; with kMustMatchNan a NaN
// in `want` is matched by a NaN in `got`. Reports the first failure and the count.
inline ::testing::AssertionResult AllCloseWith(NanInWant nan, const std::vector<float>& want,
                                               const std::vector<float>& got, float atol,
                                               float rtol) {
  if (want.size() != got.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool ok =
        std::fabs(want[i] - got[i]) <= atol + rtol * std::fabs(want[i]) ||
        (nan == NanInWant::kMustMatchNan && std::isnan(want[i]) && std::isnan(got[i])) ||
        want[i] == got[i];
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << want.size() << " differ; first at [" << first << "]: want "
         << want[first] << ", got " << got[first];
}

// A parameterized suite over `isas`; a build without SIMD tables (Cortex-M, ARMv7 without
// NEON) may instantiate nothing.
#define EDGEFOLD_INSTANTIATE_ISAS(Suite, isas)          \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Suite); \
  INSTANTIATE_TEST_SUITE_P(Isa, Suite, ::testing::ValuesIn(isas), IsaTestName)

}  // namespace edgefold::kernels::testing
