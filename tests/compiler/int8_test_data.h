// Shared by the int8 compiler tests: the digits example's test images and the SQNR of an int8
// model's output against the float model's.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "testing/npy_read.h"

namespace edgefold::compiler::int8_testing {

inline kernels::testing::NpyArray DigitsImages() {
  kernels::testing::NpyArray x;
  std::string error;
  EXPECT_TRUE(kernels::testing::ReadNpyF32(
      std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_test_x.npy", &x, &error))
      << error;
  return x;
}

// 10·log10(Σ f² / Σ (f − q)²) over the first n values (all when n is 0).
inline double SqnrDb(const std::vector<float>& f, const std::vector<float>& q, size_t n = 0) {
  double signal = 0, noise = 0;
  for (size_t k = 0; k < (n != 0 ? n : f.size()); ++k) {
    signal += double(f[k]) * f[k];
    noise += (double(f[k]) - q[k]) * (double(f[k]) - q[k]);
  }
  return 10 * std::log10(signal / noise);
}

}  // namespace edgefold::compiler::int8_testing
