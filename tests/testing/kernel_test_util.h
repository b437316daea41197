// Helpers for the kernel tests: the SIMD tables to compare with the scalar reference (ref::*),
// the awkward sizes and every activation.
#pragma once
#include <vector>

#include "kernels/conv_kernel_table.h"
#include "kernels/int8_kernel_table.h"
#include "kernels/kernel_table.h"
#include "kernels/sequence_kernel_table.h"
#include "kernels/reference.h"
#include "testing/isa_test_util.h"

namespace edgefold::kernels::testing {

inline std::vector<Isa> SimdIsas() { return SimdIsasWith(&TableFor<KernelTable>); }

// The scalar table too, for suites with an oracle of their own and for the kernels whose scalar
// entry is not the reference itself (gemm: scalar::GemmTiled, conv2d_depthwise:
// scalar::Conv2dDepthwiseClipped).
inline std::vector<Isa> ScalarAndSimdIsas() {
  std::vector<Isa> isas = SimdIsas();
  isas.insert(isas.begin(), Isa::kScalar);
  return isas;
}

// Base fixture: `table()` is the float core table under test (SIMD, or scalar in suites
// instantiated with ScalarAndSimdIsas), conv(), int8() and sequence() the other families' tables
// of the same level (kernels/table_for.h); the scalar reference is ref::*.
class KernelTest : public IsaTableTest<KernelTable, &TableFor<KernelTable>> {
 protected:
  const ConvKernelTable& conv() const { return *TableFor<ConvKernelTable>(GetParam()); }
  const Int8KernelTable& int8() const { return *TableFor<Int8KernelTable>(GetParam()); }
  const SequenceKernelTable& sequence() const { return *TableFor<SequenceKernelTable>(GetParam()); }
  size_t W() const { return table().simd_floats; }
  // 1, W−1, W, W+1, 2W+1, a prime, 17×12 and a large odd size.
  std::vector<size_t> AwkwardSizes() const {
    std::vector<size_t> sizes = {1, W() + 1, W(), 2 * W() + 1, 13, 17 * 12, 4099};
    if (W() > 1) sizes.push_back(W() - 1);
    return sizes;
  }
};

inline ::testing::AssertionResult AllClose(const std::vector<float>& want,
                                           const std::vector<float>& got, float atol = 1e-6f,
                                           float rtol = 1e-5f) {
  return AllCloseWith(NanInWant::kMustMatchNan, want, got, atol, rtol);
}

// Every activation with parameters that make its branches matter on inputs in [−4, 4], and the
// unary math kinds that are well conditioned on any input (Log, Sqrt, Reciprocal and Pow near 0
// would turn the kernels' different summation orders into large relative errors; their own
// accuracy test is tests/runtime/kernels/unary_math_test.cc).
inline std::vector<Activation> AllActivations() {
  return {{ActKind::kNone, 0, 0},        {ActKind::kRelu, 0, 0},
          {ActKind::kClip, -0.5f, 0.6f}, {ActKind::kLeakyRelu, 0.1f, 0},
          {ActKind::kSigmoid, 0, 0},     {ActKind::kHardSigmoid, 0.2f, 0.5f},
          {ActKind::kHardSwish, 0, 0},   {ActKind::kSiLU, 0, 0},
          {ActKind::kTanh, 0, 0},        {ActKind::kGelu, 0, 0},
          {ActKind::kExp, 0, 0},         {ActKind::kErf, 0, 0},
          {ActKind::kNeg, 0, 0},         {ActKind::kAbs, 0, 0},
          {ActKind::kSquare, 0, 0}};
}

#define EDGEFOLD_INSTANTIATE_SIMD(Suite) EDGEFOLD_INSTANTIATE_ISAS(Suite, SimdIsas())
#define EDGEFOLD_INSTANTIATE_SCALAR_AND_SIMD(Suite) \
  EDGEFOLD_INSTANTIATE_ISAS(Suite, ScalarAndSimdIsas())

}  // namespace edgefold::kernels::testing
