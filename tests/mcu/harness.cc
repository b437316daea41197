#include "harness.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace edgefold::mcu_test {

void Harness::Check(bool ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAILED: %s\n", what);
  }
}

void Harness::Close(const float* want, const float* got, size_t n, float atol, float rtol,
                    const char* what) {
  for (size_t i = 0; i < n; ++i) {
    if (!(std::fabs(want[i] - got[i]) <= atol + rtol * std::fabs(want[i]))) {
      std::printf("FAILED: %s: [%u] want %.7g got %.7g\n", what, static_cast<unsigned>(i),
                  static_cast<double>(want[i]), static_cast<double>(got[i]));
      ++failed;
      return;
    }
  }
  ++passed;
}

void FillRandom(float* v, size_t n, unsigned seed, float lo, float hi) {
  uint32_t s = seed * 2654435761u + 1u;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + (hi - lo) * static_cast<float>(s >> 8) * (1.0f / 16777216.0f);
  }
}

}  // namespace edgefold::mcu_test

int main() {
  edgefold::mcu_test::Harness h;
  edgefold::mcu_test::RunKernelChecks(h);
  edgefold::mcu_test::RunInt8Checks(h);
  edgefold::mcu_test::RunModelChecks(h);
  std::printf("%d passed, %d failed\n", h.passed, h.failed);
  return h.failed == 0 && h.passed > 0 ? 0 : 1;
}
