// TileRegs (kernels/simd/tile_regs.h): each index names its own member, and Unrolled visits
// 0 … N − 1 once each, in order (the GEMM tiles' sums depend on that order).
#include "kernels/simd/tile_regs.h"

#include <gtest/gtest.h>

#include <vector>

namespace edgefold::kernels::testing {
namespace {

TEST(TileRegs, UnrolledVisitsEveryIndexInOrder) {
  std::vector<size_t> seen;
  Unrolled<7>([&](auto i) { seen.push_back(i); });
  ASSERT_EQ(seen.size(), 7u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i);
  size_t none = 0;
  Unrolled<0>([&](auto) { ++none; });
  EXPECT_EQ(none, 0u);
}

TEST(TileRegs, EachIndexIsItsOwnMember) {
  constexpr size_t kRows = 8, kCols = 3;  // the AVX-512 GEMM tile's shape
  TileRegs<float, kRows * kCols> regs;
  Unrolled<kRows * kCols>([&](auto i) { TileReg<i>(regs) = 10.0f * (i / kCols) + (i % kCols); });
  // Row-major as the tiles use it: register (r, v) is index r·NV + v.
  Unrolled<kRows>([&](auto r) {
    Unrolled<kCols>([&](auto v) {
      EXPECT_EQ(TileReg<r * kCols + v>(regs), 10.0f * r + v) << "row " << r << ", column " << v;
    });
  });
  TileReg<5>(regs) = -1.0f;  // writing one leaves its neighbours alone
  EXPECT_EQ(TileReg<4>(regs), 11.0f);
  EXPECT_EQ(TileReg<6>(regs), 20.0f);
}

}  // namespace
}  // namespace edgefold::kernels::testing
