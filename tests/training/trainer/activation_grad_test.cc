// The activation derivatives of training/activation_grad.h against central finite differences
// of the reference activation (double step on float values, points away from the kinks), and
// the from-output form against the from-input form wherever it is supported.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/act_scalar.h"
#include "training/activation_grad.h"

namespace edgefold::internal {
namespace {

using kernels::Activation;
using kernels::ActKind;

TEST(ActivationGrad, FromInputMatchesFiniteDifferencesForEveryKind) {
  const Activation acts[] = {{ActKind::kRelu, 0, 0},
                             {ActKind::kClip, -0.5f, 0.6f},
                             {ActKind::kLeakyRelu, 0.1f, 0},
                             {ActKind::kSigmoid, 0, 0},
                             {ActKind::kHardSigmoid, 0.2f, 0.5f},
                             {ActKind::kHardSwish, 0, 0},
                             {ActKind::kSiLU, 0, 0}};
  // Kinks: 0, −0.5, 0.6, ±2.5 (HardSigmoid 0.2/0.5), ±3 (HardSwish); the grid steps by 0.37 from −5.9.
  for (const Activation& a : acts) {
    int checked = 0;
    for (float x = -5.9f; x < 6.0f; x += 0.37f) {
      const float h = 1e-3f;
      const double fd =
          (double(kernels::ApplyActivation(x + h, a)) - kernels::ApplyActivation(x - h, a)) /
          (2.0 * h);
      const float g = ActGradFromInput(a, x);
      EXPECT_NEAR(g, fd, 2e-3 + 1e-3 * std::fabs(fd)) << "kind " << int(a.kind) << " x " << x;
      if (GradFromOutputSupported(a.kind))
        EXPECT_NEAR(ActGradFromOutput(a, kernels::ApplyActivation(x, a)), g, 1e-6)
            << "kind " << int(a.kind) << " x " << x;
      ++checked;
    }
    EXPECT_GT(checked, 30);
  }
}

// The unary math kinds, each on a grid inside its domain (Log, Sqrt, Reciprocal and Pow 2.5 on
// x > 0; Abs away from 0), from the input and, where supported, from the output.
TEST(ActivationGrad, UnaryMathKindsMatchFiniteDifferences) {
  struct Case {
    Activation a;
    float lo, hi;
  };
  const Case cases[] = {
      {{ActKind::kTanh, 0, 0}, -4, 4},         {{ActKind::kExp, 0, 0}, -4, 4},
      {{ActKind::kLog, 0, 0}, 0.05f, 6},       {{ActKind::kSqrt, 0, 0}, 0.05f, 6},
      {{ActKind::kReciprocal, 0, 0}, 0.2f, 6}, {{ActKind::kNeg, 0, 0}, -4, 4},
      {{ActKind::kAbs, 0, 0}, -4.05f, 4},      {{ActKind::kErf, 0, 0}, -3, 3},
      {{ActKind::kGelu, 0, 0}, -5, 5},         {{ActKind::kSquare, 0, 0}, -4, 4},
      {{ActKind::kPow, 3, 0}, -3, 3},          {{ActKind::kPow, 2.5f, 0}, 0.05f, 4}};
  for (const Case& c : cases) {
    int checked = 0;
    for (float x = c.lo; x < c.hi; x += (c.hi - c.lo) / 37) {
      const float h = 1e-3f;
      const double fd =
          (double(kernels::ApplyActivation(x + h, c.a)) - kernels::ApplyActivation(x - h, c.a)) /
          (2.0 * h);
      const float g = ActGradFromInput(c.a, x);
      EXPECT_NEAR(g, fd, 2e-3 + 1e-3 * std::fabs(fd)) << "kind " << int(c.a.kind) << " x " << x;
      if (GradFromOutputSupported(c.a.kind))
        EXPECT_NEAR(ActGradFromOutput(c.a, kernels::ApplyActivation(x, c.a)), g,
                    1e-5 * (1 + std::fabs(g)))
            << "kind " << int(c.a.kind) << " x " << x;
      ++checked;
    }
    EXPECT_GE(checked, 36);
  }
  for (ActKind k : {ActKind::kGelu, ActKind::kAbs, ActKind::kErf, ActKind::kSquare, ActKind::kPow})
    EXPECT_FALSE(GradFromOutputSupported(k)) << int(k);
}

// SiLU: s(x)·(1 + x·(1 − s(x))) by hand; y = x·s(x) is not monotone (minimum near x = −1.28),
// so the derivative is not a function of y and a fused SiLU cannot be trained.
TEST(ActivationGrad, SiluByHandAndNotFromOutput) {
  const Activation silu{ActKind::kSiLU, 0, 0};
  EXPECT_FLOAT_EQ(ActGradFromInput(silu, 0.0f), 0.5f);
  EXPECT_NEAR(ActGradFromInput(silu, 2.0f), 1.0907842f, 1e-6);   // σ(2)·(1 + 2·(1 − σ(2)))
  EXPECT_NEAR(ActGradFromInput(silu, -1.2784645f), 0.0f, 1e-6);  // the minimum of x·σ(x)
  EXPECT_FALSE(GradFromOutputSupported(ActKind::kSiLU));
  EXPECT_FALSE(GradFromOutputSupported(ActKind::kHardSwish));
  EXPECT_TRUE(GradFromOutputSupported(ActKind::kSigmoid));
}

}  // namespace
}  // namespace edgefold::internal
