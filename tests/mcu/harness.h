// A tiny test harness for targets without GoogleTest (Cortex-M on newlib): counts checks,
// prints each failure, and ends with the line "N passed, N failed".
#pragma once
#include <cstddef>

namespace edgefold::mcu_test {

struct Harness {
  int passed = 0;
  int failed = 0;
  // Records one check; prints `what` when it fails.
  void Check(bool ok, const char* what);
  // |want[i] − got[i]| ≤ atol + rtol·|want[i]| for all i; prints the first mismatch.
  void Close(const float* want, const float* got, size_t n, float atol, float rtol,
             const char* what);
};

// Deterministic values in [lo, hi) (32-bit LCG): the same on every target.
void FillRandom(float* v, size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f);

void RunKernelChecks(Harness& h);
void RunInt8Checks(Harness& h);
void RunModelChecks(Harness& h);

}  // namespace edgefold::mcu_test
