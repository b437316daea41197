// BatchNorm training kernels of every table against PyTorch autograd golden data
// (tests/golden/train/, made by make_bn_golden.py: float64 autograd on float32 inputs).
// Tolerance: |got − want| ≤ 1e-5·max|want| per tensor (relative to the tensor's scale; for dx
// the scale is at least max|γ·inv_std·dy|, see BnDxScale: with m = 2, dx cancels to ~eps/σ²).
// The running-statistics update (momentum 0.1, unbiased variance) is checked on the kernel's
// batch mean/var with PyTorch's formula, as the trainer applies it.
#include <cstdio>

#include "testing/npy_read.h"
#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

constexpr float kEps = 1e-5f, kMomentum = 0.1f;
constexpr double kRelTol = 1e-5;
const char* const kCases[] = {"conv_2x3x4x5", "conv_4x8x7x7",          "conv_3x5x17x1",  "dense_m2",
                              "dense_5x6",    "conv_constant_channel", "conv_large_mean"};

NpyArray Load(const std::string& dir, const char* name) {
  NpyArray a;
  std::string error;
  EXPECT_TRUE(ReadNpyF32(dir + "/" + name + ".npy", &a, &error)) << error;
  return a;
}

double Err(const std::vector<float>& got, const std::vector<float>& want, double floor = 1e-30) {
  return ScaledMaxError(std::vector<double>(got.begin(), got.end()),
                        std::vector<double>(want.begin(), want.end()), floor);
}

class BnGoldenTest : public TrainKernelTest {};

TEST_P(BnGoldenTest, MatchesPyTorchAutograd) {
  for (const char* name : kCases) {
    const std::string dir = std::string(EDGEFOLD_TRAIN_GOLDEN_DIR) + "/" + name;
    const NpyArray x = Load(dir, "x"), gamma = Load(dir, "gamma"), beta = Load(dir, "beta"),
                   dy = Load(dir, "dy");
    ASSERT_GE(x.shape.size(), 2u) << name;
    const size_t batch = x.shape[0], c = x.shape[1], spatial = x.data.size() / (batch * c);
    const size_t n = x.data.size();
    std::vector<float> y(n), xhat(n), mean(c), var(c), inv_std(c), dx(n), dg(c), db(c);
    table().batchnorm_train_forward(x.data.data(), gamma.data.data(), beta.data.data(), kEps,
                                    y.data(), xhat.data(), mean.data(), var.data(), inv_std.data(),
                                    batch, c, spatial);
    table().batchnorm_backward(dy.data.data(), xhat.data(), gamma.data.data(), inv_std.data(),
                               dx.data(), dg.data(), db.data(), batch, c, spatial);
    // Running statistics, PyTorch convention: new = (1 − momentum)·old + momentum·batch,
    // with the batch variance made unbiased by m/(m − 1).
    const NpyArray rm_in = Load(dir, "running_mean_in"), rv_in = Load(dir, "running_var_in");
    const float m = static_cast<float>(batch * spatial);
    std::vector<float> rm(c), rv(c);
    for (size_t i = 0; i < c; ++i) {
      rm[i] = (1 - kMomentum) * rm_in.data[i] + kMomentum * mean[i];
      rv[i] = (1 - kMomentum) * rv_in.data[i] + kMomentum * var[i] * m / (m - 1);
    }
    const double errs[] = {
        Err(y, Load(dir, "y").data),
        Err(mean, Load(dir, "mean").data),
        Err(var, Load(dir, "var").data),
        Err(dx, Load(dir, "dx").data, BnDxScale(dy.data, gamma.data, inv_std, batch, c, spatial)),
        Err(dg, Load(dir, "dgamma").data),
        Err(db, Load(dir, "dbeta").data),
        Err(rm, Load(dir, "running_mean").data),
        Err(rv, Load(dir, "running_var").data)};
    const char* what[] = {"y",      "mean",  "var",          "dx",
                          "dgamma", "dbeta", "running_mean", "running_var"};
    std::printf("[torch] %-8s %-22s", IsaName(GetParam()), name);
    for (size_t i = 0; i < 8; ++i) std::printf(" %s %.1e", what[i], errs[i]);
    std::printf("\n");
    for (size_t i = 0; i < 8; ++i) EXPECT_LE(errs[i], kRelTol) << name << " " << what[i];
  }
}

EDGEFOLD_INSTANTIATE_ISAS(BnGoldenTest, AllTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
