// BatchNorm training forward/backward of every table against a double-precision reference
// and central finite differences of it (per-case step h and error bound, as ggml's
// test-backend-ops). Loss L = Σ dy·y, so ∂L/∂x, ∂L/∂γ, ∂L/∂β are what backward returns.
// Errors are max|kernel − FD| over max|FD| (for dx: over max(max|FD|, max|γ·inv_std·dy|), see
// BnDxScale).
#include <cstdio>

#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

constexpr double kEps = 1e-5;

struct FdCase {
  const char* name;
  size_t batch, channels, spatial;
  double h;        // finite-difference step for x: 1e-3 of the data's spread (≥ √eps)
  double max_err;  // bound on max|kernel − FD| / max|FD| per gradient
  std::vector<float> x, gamma, beta, dy;
};

// Σ dy·y with y = γ·(x − μ)/√(σ² + eps) + β, μ and σ² (biased) in double, two-pass.
double BnLoss(const FdCase& k, const std::vector<double>& x, const std::vector<double>& g,
              const std::vector<double>& b, std::vector<double>* y = nullptr) {
  double loss = 0.0;
  const double m = static_cast<double>(k.batch * k.spatial);
  for (size_t c = 0; c < k.channels; ++c) {
    double mu = 0.0, var = 0.0;
    for (size_t n = 0; n < k.batch; ++n)
      for (size_t s = 0; s < k.spatial; ++s) mu += x[(n * k.channels + c) * k.spatial + s];
    mu /= m;
    for (size_t n = 0; n < k.batch; ++n)
      for (size_t s = 0; s < k.spatial; ++s)
        var += std::pow(x[(n * k.channels + c) * k.spatial + s] - mu, 2);
    const double inv_std = 1.0 / std::sqrt(var / m + kEps);
    for (size_t n = 0; n < k.batch; ++n)
      for (size_t s = 0; s < k.spatial; ++s) {
        const size_t i = (n * k.channels + c) * k.spatial + s;
        const double yi = g[c] * (x[i] - mu) * inv_std + b[c];
        if (y != nullptr) (*y)[i] = yi;
        loss += k.dy[i] * yi;
      }
  }
  return loss;
}

// Central difference (L(v + h) − L(v − h)) / 2h for every element of *v.
std::vector<double> FiniteDiff(const FdCase& k, std::vector<double>* v, double h,
                               std::vector<double>& x, std::vector<double>& g,
                               std::vector<double>& b) {
  std::vector<double> grad(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    const double keep = (*v)[i];
    (*v)[i] = keep + h;
    const double up = BnLoss(k, x, g, b);
    (*v)[i] = keep - h;
    const double down = BnLoss(k, x, g, b);
    (*v)[i] = keep;
    grad[i] = (up - down) / (2 * h);
  }
  return grad;
}

std::vector<double> ToDouble(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

FdCase MakeCase(const char* name, size_t batch, size_t channels, size_t spatial, double h,
                double max_err, float center, float spread, int constant_channel = -1) {
  FdCase k{name, batch, channels, spatial, h, max_err, {}, {}, {}, {}};
  const size_t n = batch * channels * spatial;
  std::mt19937 gen(static_cast<unsigned>(n * 31 + channels));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t i = 0; i < n; ++i) k.x.push_back(center + spread * normal(gen));
  if (constant_channel >= 0)
    for (size_t b = 0; b < batch; ++b)
      for (size_t s = 0; s < spatial; ++s)
        k.x[(b * channels + constant_channel) * spatial + s] = 0.75f;
  k.gamma = RandomVector(channels, 0.5f, 1.5f, 3);
  k.gamma[0] = -k.gamma[0];
  k.beta = RandomVector(channels, -0.5f, 0.5f, 4);
  k.dy = RandomVector(n, -1.0f, 1.0f, 5);
  return k;
}

std::vector<FdCase> Cases() {
  return {MakeCase("general", 3, 4, 37, 1.5e-3, 1e-4, 0.3f, 1.5f),
          MakeCase("m2_N2_S1", 2, 3, 1, 1e-3, 1e-4, 0.0f, 1.0f),
          MakeCase("dense_N5", 5, 6, 1, 1e-3, 1e-4, 0.0f, 1.0f),
          MakeCase("constant_channel", 2, 2, 20, 3e-6, 1e-4, 0.0f, 1.0f, 1),
          MakeCase("large_mean_1e4", 2, 2, 20, 1e-5, 1e-3, 1e4f, 1e-2f)};
}

class BnFiniteDiffTest : public TrainKernelTest {};

TEST_P(BnFiniteDiffTest, ForwardAndGradientsMatchDoubleFiniteDifferences) {
  for (FdCase k : Cases()) {
    const size_t n = k.x.size(), c = k.channels;
    std::vector<float> y(n), xhat(n), mean(c), var(c), inv_std(c), dx(n), dg(c), db(c);
    table().batchnorm_train_forward(k.x.data(), k.gamma.data(), k.beta.data(),
                                    static_cast<float>(kEps), y.data(), xhat.data(), mean.data(),
                                    var.data(), inv_std.data(), k.batch, c, k.spatial);
    table().batchnorm_backward(k.dy.data(), xhat.data(), k.gamma.data(), inv_std.data(), dx.data(),
                               dg.data(), db.data(), k.batch, c, k.spatial);
    std::vector<double> x = ToDouble(k.x), g = ToDouble(k.gamma), b = ToDouble(k.beta), y_ref(n);
    BnLoss(k, x, g, b, &y_ref);
    const double y_err = ScaledMaxError(ToDouble(y), y_ref);
    const double dx_err = ScaledMaxError(ToDouble(dx), FiniteDiff(k, &x, k.h, x, g, b),
                                         BnDxScale(k.dy, k.gamma, inv_std, k.batch, c, k.spatial));
    const double dg_err = ScaledMaxError(ToDouble(dg), FiniteDiff(k, &g, 1e-3, x, g, b));
    const double db_err = ScaledMaxError(ToDouble(db), FiniteDiff(k, &b, 1e-3, x, g, b));
    std::printf("[fd] %-8s %-16s y %.2e  dx %.2e  dgamma %.2e  dbeta %.2e  (bound %.0e)\n",
                IsaName(GetParam()), k.name, y_err, dx_err, dg_err, db_err, k.max_err);
    EXPECT_LE(y_err, k.max_err) << k.name;
    EXPECT_LE(dx_err, k.max_err) << k.name;
    EXPECT_LE(dg_err, k.max_err) << k.name;
    EXPECT_LE(db_err, k.max_err) << k.name;
    if (std::string(k.name) == "constant_channel") {  // variance 0 → inv_std = 1/√eps, xhat = 0
      EXPECT_EQ(var[1], 0.0f);
      EXPECT_NEAR(inv_std[1], 1.0 / std::sqrt(kEps), 1e-6 / std::sqrt(kEps));
      for (size_t bb = 0; bb < k.batch; ++bb) EXPECT_EQ(xhat[(bb * c + 1) * k.spatial], 0.0f);
    }
  }
}

EDGEFOLD_INSTANTIATE_ISAS(BnFiniteDiffTest, AllTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
