// Accuracy of the unary math activations (Tanh, Exp, Log, Sqrt, Reciprocal, Neg, Abs, Erf,
// Gelu, Square, Pow) against the double-precision std:: functions, for the scalar reference
// and every SIMD table, at sizes around the register width, special values included (±0, ±inf,
// NaN, subnormals, Log/Sqrt of x < 0 → NaN as numpy); and Min/Max with NaN and ties.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <string>

#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

struct MathCase {
  const char* name;
  Activation act;
  std::function<double(double)> exact;
  float lo, hi;     // random inputs
  float floor;      // errors are counted in ulps of max(|exact|, floor)
  double max_ulps;  // bound for the SIMD tables, plus per_log·|alpha·ln|x|| (Pow)
  double per_log = 0;
};

std::vector<MathCase> Cases() {
  const auto gelu = [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); };
  return {
      {"Tanh", {ActKind::kTanh, 0, 0}, [](double x) { return std::tanh(x); }, -12, 12, 0, 4},
      {"Exp", {ActKind::kExp, 0, 0}, [](double x) { return std::exp(x); }, -103, 88.5f, 0, 3},
      {"Log", {ActKind::kLog, 0, 0}, [](double x) { return std::log(x); }, 1e-6f, 1e6f, 0, 2},
      {"Sqrt", {ActKind::kSqrt, 0, 0}, [](double x) { return std::sqrt(x); }, 0, 1e6f, 0, 0.5},
      {"Reciprocal",
       {ActKind::kReciprocal, 0, 0},
       [](double x) { return 1 / x; },
       -100,
       100,
       0,
       0.5},
      {"Neg", {ActKind::kNeg, 0, 0}, [](double x) { return -x; }, -100, 100, 0, 0},
      {"Abs", {ActKind::kAbs, 0, 0}, [](double x) { return std::fabs(x); }, -100, 100, 0, 0},
      {"Erf", {ActKind::kErf, 0, 0}, [](double x) { return std::erf(x); }, -5, 5, 0, 4},
      // x·½·(1 + erf(x/√2)) in float loses digits to cancellation for x ≪ 0 (as PyTorch's
      // exported graph does): counted in ulps of max(|y|, 1).
      {"Gelu", {ActKind::kGelu, 0, 0}, gelu, -10, 10, 1, 4},
      {"Square", {ActKind::kSquare, 0, 0}, [](double x) { return x * x; }, -1e3f, 1e3f, 0, 0.5},
      // Integer exponents by repeated multiplication; the others through exp(e·ln|x|), whose
      // error grows with |e·ln x| (the rounding of ln x is scaled by it).
      {"Pow3", {ActKind::kPow, 3, 0}, [](double x) { return std::pow(x, 3.0); }, -100, 100, 0, 2},
      {"Pow-4", {ActKind::kPow, -4, 0}, [](double x) { return std::pow(x, -4.0); }, -20, 20, 0, 4},
      {"Pow2.5",
       {ActKind::kPow, 2.5f, 0},
       [](double x) { return std::pow(x, 2.5); },
       -10,
       1000,
       0,
       3,
       1.5},
      {"Pow-1.5",
       {ActKind::kPow, -1.5f, 0},
       [](double x) { return std::pow(x, -1.5); },
       1e-3f,
       1e3f,
       0,
       3,
       1.5},
      {"Pow0", {ActKind::kPow, 0, 0}, [](double) { return 1.0; }, -10, 10, 0, 0},
  };
}

std::vector<float> SpecialValues() {
  return {0.0f,    -0.0f,   1.0f,  -1.0f,  0.5f,    -0.5f,    2.0f,   -2.0f,   0.6249f, 0.6251f,
          0.6666f, 0.6667f, 1e-3f, -1e-3f, 1e-30f,  -1e-30f,  1e-40f, -1e-40f, FLT_MIN, 3.0f,
          -3.0f,   9.5f,    -9.5f, 43.0f,  -44.0f,  80.0f,    88.0f,  89.0f,   -87.5f,  -95.0f,
          -103.0f, -110.0f, 1e30f, -1e30f, FLT_MAX, -FLT_MAX, kInf,   -kInf,   kNan};
}

// Error of `got` against `exact` in ulps of max(|exact as float|, floor); 0 when both are the
// same NaN/inf, infinite when only one is.
double UlpError(float got, double exact, float floor) {
  const float want = static_cast<float>(exact);
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(want) || std::isinf(got)) return want == got ? 0 : INFINITY;
  const float mag = std::max(std::fabs(want), floor);
  const double ulp = std::nextafter(mag, kInf) - mag;
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}

// Max ulp error of `run` over the special values and random inputs, cycled to each size, as a
// fraction of the case's bound when `relative` (1 = at the bound).
double MaxError(const MathCase& c, const std::vector<size_t>& sizes,
                const std::function<void(const float*, float*, size_t)>& run, std::string* where,
                bool relative = false, bool flushes_subnormals = false) {
  std::vector<float> pool = SpecialValues();
  for (float v : RandomVector(4099, c.lo, c.hi, 77)) pool.push_back(v);
  double worst = 0;
  for (size_t n : sizes) {
    for (size_t offset : {size_t{0}, size_t{3}}) {
      std::vector<float> x(n), y(n);
      for (size_t i = 0; i < n; ++i) x[i] = pool[(i + offset) % pool.size()];
      run(x.data(), y.data(), n);
      for (size_t i = 0; i < n; ++i) {
        // ARMv7 NEON flushes subnormal inputs and results to zero (neon.cc): not compared there.
        const float want = static_cast<float>(c.exact(x[i]));
        if (flushes_subnormals &&
            (std::fpclassify(x[i]) == FP_SUBNORMAL || std::fpclassify(want) == FP_SUBNORMAL ||
             (want != 0 && std::fabs(want) < 2 * FLT_MIN)))
          continue;
        double e = UlpError(y[i], c.exact(x[i]), c.floor);
        if (relative) {
          const double lx = std::fabs(x[i]) > 0 && std::isfinite(x[i])
                                ? std::fabs(c.act.alpha * std::log(std::fabs(x[i])))
                                : 0;
          e /= std::max(c.max_ulps + c.per_log * lx, 1e-9);
        }
        if (e > worst) {
          worst = e;
          *where = "x=" + std::to_string(x[i]) + " got " + std::to_string(y[i]) + " want " +
                   std::to_string(c.exact(x[i])) + " (n=" + std::to_string(n) + ")";
        }
      }
    }
  }
  return worst;
}

// The scalar reference (also the Cortex-M path) uses the float std:: functions: ≤ 1 ulp, glibc's
// tanhf ≤ 2; Gelu inherits the formula's rounding.
TEST(UnaryMathReference, WithinOneUlpOfDouble) {
  for (const MathCase& c : Cases()) {
    std::string where;
    const double err = MaxError(
        c, {1, 7, 8, 9, 13, 4099},
        [&](const float* x, float* y, size_t n) { ref::ActivationKernel(x, y, n, c.act); }, &where);
    const double bound = c.act.kind == ActKind::kGelu ? 4 : c.act.kind == ActKind::kTanh ? 2 : 1;
    EXPECT_LE(err, bound) << c.name << ": " << where;
    std::cout << "[ accuracy ] reference " << c.name << ": max " << err << " ulp\n";
  }
}

using UnaryMathTest = KernelTest;

TEST_P(UnaryMathTest, WithinBoundOfDouble) {
  for (const MathCase& c : Cases()) {
    std::string where;
    auto run = [&](const float* x, float* y, size_t n) { table().activation(x, y, n, c.act); };
#if defined(__arm__)
    const bool ftz = GetParam() == Isa::kNeon;
#else
    const bool ftz = false;
#endif
    const double err = MaxError(c, AwkwardSizes(), run, &where, false, ftz);
    const double of_bound = MaxError(c, AwkwardSizes(), run, &where, /*relative=*/true, ftz);
    EXPECT_LE(of_bound, 1.0) << c.name << ": " << where;
    std::cout << "[ accuracy ] " << IsaName(GetParam()) << " " << c.name << ": max " << err
              << " ulp (" << of_bound << " of the bound)\n";
  }
}

// ONNX/numpy special values, exactly.
TEST_P(UnaryMathTest, SpecialValues) {
  auto one = [&](ActKind kind, float x, float alpha = 0) {
    float in[1] = {x}, out[1];
    table().activation(in, out, 1, {kind, alpha, 0});
    const size_t n = W() + 1;  // and through the vector loop
    std::vector<float> xs(n, x), ys(n);
    table().activation(xs.data(), ys.data(), n, {kind, alpha, 0});
    EXPECT_TRUE(std::memcmp(&out[0], &ys[0], sizeof(float)) == 0 ||
                (std::isnan(out[0]) && std::isnan(ys[0])))
        << int(kind) << " x=" << x << ": tail " << out[0] << " vs vector " << ys[0];
    return ys[0];
  };
  EXPECT_TRUE(std::isnan(one(ActKind::kLog, -1.0f)));
  EXPECT_EQ(one(ActKind::kLog, 0.0f), -kInf);
  EXPECT_EQ(one(ActKind::kLog, kInf), kInf);
  EXPECT_TRUE(std::isnan(one(ActKind::kSqrt, -1.0f)));
  EXPECT_EQ(one(ActKind::kSqrt, kInf), kInf);
  EXPECT_EQ(one(ActKind::kExp, kInf), kInf);
  EXPECT_EQ(one(ActKind::kExp, -kInf), 0.0f);
  EXPECT_EQ(one(ActKind::kExp, 89.0f), kInf);
  EXPECT_EQ(one(ActKind::kExp, 0.0f), 1.0f);
  EXPECT_EQ(one(ActKind::kTanh, kInf), 1.0f);
  EXPECT_EQ(one(ActKind::kTanh, -kInf), -1.0f);
  EXPECT_EQ(one(ActKind::kErf, -kInf), -1.0f);
  EXPECT_EQ(one(ActKind::kReciprocal, 0.0f), kInf);
  EXPECT_EQ(one(ActKind::kReciprocal, -0.0f), -kInf);
  EXPECT_EQ(one(ActKind::kGelu, kInf), kInf);
  EXPECT_EQ(one(ActKind::kPow, -2.0f, 3.0f), -8.0f);
  EXPECT_TRUE(std::isnan(one(ActKind::kPow, -2.0f, 2.5f)));
  EXPECT_EQ(one(ActKind::kPow, 0.0f, -1.5f), kInf);
  EXPECT_EQ(one(ActKind::kPow, kNan, 0.0f), 1.0f);
  for (ActKind k :
       {ActKind::kTanh, ActKind::kExp, ActKind::kLog, ActKind::kSqrt, ActKind::kErf, ActKind::kGelu,
        ActKind::kAbs, ActKind::kNeg, ActKind::kReciprocal, ActKind::kSquare})
    EXPECT_TRUE(std::isnan(one(k, kNan))) << int(k);
  EXPECT_TRUE(std::isnan(one(ActKind::kPow, kNan, 2.5f)));
}

// Min/Max propagate NaN from either operand (numpy's minimum/maximum) in every broadcast mode.
TEST_P(UnaryMathTest, MinMaxPropagateNan) {
  for (size_t n : AwkwardSizes()) {
    std::vector<float> a = RandomVector(n, -1, 1, 5), b = RandomVector(n, -1, 1, 6);
    a[0] = kNan;
    if (n > 2) b[2] = kNan, b[1] = a[1];
    if (n > 5) a[5] = kInf, b[4] = -kInf;
    for (BinaryKind kind : {BinaryKind::kMin, BinaryKind::kMax}) {
      for (BroadcastMode mode :
           {BroadcastMode::kElementwise, BroadcastMode::kScalarA, BroadcastMode::kScalarB}) {
        std::vector<float> want(n), got(n);
        ref::Binary(kind, mode, a.data(), b.data(), want.data(), n, {});
        table().binary(kind, mode, a.data(), b.data(), got.data(), n, {});
        ASSERT_TRUE(AllClose(want, got, 0, 0))
            << "n=" << n << " kind=" << int(kind) << " mode=" << int(mode);
        for (size_t i = 0; i < n; ++i) {
          const float va = a[mode == BroadcastMode::kScalarA ? 0 : i],
                      vb = b[mode == BroadcastMode::kScalarB ? 0 : i];
          if (std::isnan(va) || std::isnan(vb)) {
            ASSERT_TRUE(std::isnan(got[i])) << i;
          } else {
            ASSERT_EQ(got[i], kind == BinaryKind::kMin ? std::min(va, vb) : std::max(va, vb)) << i;
          }
        }
      }
    }
  }
}

EDGEFOLD_INSTANTIATE_SIMD(UnaryMathTest);

}  // namespace
}  // namespace edgefold::kernels::testing
