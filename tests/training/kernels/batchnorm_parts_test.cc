// The BatchNorm forward in parts (batchnorm_statistics, batchnorm_normalize: the frozen and the
// 16-bit-x̂ forwards of the trainer): every table against a double oracle, every SIMD table
// against the scalar reference at awkward sizes (1, W−1, W, W+1, 13, 2W+3, 1031), and the
// statistics equal to those the whole forward (batchnorm_train_forward) reports.
#include <string>

#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

struct BnShape {
  size_t batch, channels, spatial;
};

std::string Describe(const BnShape& s) {
  return "N=" + std::to_string(s.batch) + " C=" + std::to_string(s.channels) +
         " S=" + std::to_string(s.spatial);
}

// x offset by `shift` per channel (a large shift tests the corrected two-pass statistics).
std::vector<float> Input(const BnShape& s, float shift) {
  std::vector<float> x = RandomVector(s.batch * s.channels * s.spatial, -2.0f, 3.0f, 21);
  for (float& v : x) v += shift;
  return x;
}

class BnPartsTest : public TrainKernelTest {
 protected:
  std::vector<BnShape> Shapes() const {
    std::vector<BnShape> shapes;
    for (size_t batch : {1, 2, 3})
      for (size_t spatial : AwkwardSizes()) shapes.push_back({batch, 3, spatial});
    for (size_t channels : {size_t{1}, W() + 1, size_t{13}})
      shapes.push_back({2, channels, W() + 1});
    return shapes;
  }
};

// Mean and biased variance in double, then inv_std = 1/√(var + eps).
void OracleStatistics(const std::vector<float>& x, const BnShape& s, float eps,
                      std::vector<float>* mean, std::vector<float>* var,
                      std::vector<float>* inv_std) {
  for (size_t c = 0; c < s.channels; ++c) {
    double sum = 0.0, sq = 0.0;
    const double m = double(s.batch * s.spatial);
    for (size_t n = 0; n < s.batch; ++n)
      for (size_t i = 0; i < s.spatial; ++i) sum += x[(n * s.channels + c) * s.spatial + i];
    const double mu = sum / m;
    for (size_t n = 0; n < s.batch; ++n)
      for (size_t i = 0; i < s.spatial; ++i) {
        const double d = x[(n * s.channels + c) * s.spatial + i] - mu;
        sq += d * d;
      }
    (*mean)[c] = float(mu);
    (*var)[c] = float(sq / m);
    (*inv_std)[c] = float(1.0 / std::sqrt(sq / m + eps));
  }
}

TEST_P(BnPartsTest, StatisticsMatchDoubleOracleAndTheWholeForward) {
  const float eps = 1e-5f;
  for (float shift : {0.0f, 50.0f})
    for (const BnShape& s : Shapes()) {
      const std::vector<float> x = Input(s, shift);
      const size_t n = x.size(), c = s.channels;
      std::vector<float> mu(c), var(c, -1.0f), is(c), mu_o(c), var_o(c), is_o(c);
      table().batchnorm_statistics(x.data(), eps, mu.data(), var.data(), is.data(), s.batch, c,
                                   s.spatial);
      OracleStatistics(x, s, eps, &mu_o, &var_o, &is_o);
      EXPECT_TRUE(AllClose(mu_o, mu, 1e-5f, 1e-6f)) << Describe(s) << " mean, shift " << shift;
      EXPECT_TRUE(AllClose(var_o, var, 1e-5f, 1e-4f)) << Describe(s) << " var, shift " << shift;
      EXPECT_TRUE(AllClose(is_o, is, 0.0f, 1e-4f)) << Describe(s) << " inv_std, shift " << shift;

      std::vector<float> y(n), mu_f(c), var_f(c), is_f(c);
      const std::vector<float> gamma(c, 1.0f), beta(c, 0.0f);
      table().batchnorm_train_forward(x.data(), gamma.data(), beta.data(), eps, y.data(), nullptr,
                                      mu_f.data(), var_f.data(), is_f.data(), s.batch, c,
                                      s.spatial);
      EXPECT_EQ(mu_f, mu) << Describe(s);
      EXPECT_EQ(var_f, var) << Describe(s);
      EXPECT_EQ(is_f, is) << Describe(s);
    }
}

TEST_P(BnPartsTest, NormalizeMatchesReferenceAndOracle) {
  for (const BnShape& s : Shapes()) {
    const std::vector<float> x = Input(s, 0.0f);
    const size_t n = x.size(), c = s.channels;
    const std::vector<float> mean = RandomVector(c, -1, 1, 22),
                             inv_std = RandomVector(c, 0.5f, 2.0f, 23);
    const std::vector<float> gamma = RandomVector(c, 0.5f, 1.5f, 24),
                             beta = RandomVector(c, -1, 1, 25);
    std::vector<float> y_r(n), h_r(n), y_s(n), h_s(n), y_o(n), h_o(n);
    for (size_t b = 0; b < s.batch; ++b)
      for (size_t ch = 0; ch < c; ++ch)
        for (size_t i = 0; i < s.spatial; ++i) {
          const size_t at = (b * c + ch) * s.spatial + i;
          const double h = (double(x[at]) - mean[ch]) * inv_std[ch];
          h_o[at] = float(h);
          y_o[at] = float(gamma[ch] * h + beta[ch]);
        }
    ref::BatchnormNormalize(x.data(), mean.data(), inv_std.data(), gamma.data(), beta.data(),
                            y_r.data(), h_r.data(), s.batch, c, s.spatial);
    EXPECT_TRUE(AllClose(h_o, h_r, 1e-5f, 1e-5f)) << Describe(s) << " reference xhat";
    EXPECT_TRUE(AllClose(y_o, y_r, 1e-5f, 1e-5f)) << Describe(s) << " reference y";
    table().batchnorm_normalize(x.data(), mean.data(), inv_std.data(), gamma.data(), beta.data(),
                                y_s.data(), h_s.data(), s.batch, c, s.spatial);
    EXPECT_TRUE(AllClose(h_r, h_s, 2e-6f, 2e-6f)) << Describe(s) << " xhat";
    EXPECT_TRUE(AllClose(y_r, y_s, 2e-6f, 2e-6f)) << Describe(s) << " y";

    std::vector<float> in_place = x;  // y over x, x̂ not kept: the same y
    table().batchnorm_normalize(in_place.data(), mean.data(), inv_std.data(), gamma.data(),
                                beta.data(), in_place.data(), nullptr, s.batch, c, s.spatial);
    EXPECT_TRUE(AllClose(y_s, in_place, 1e-6f, 1e-6f)) << Describe(s) << " in place";
  }
}

EDGEFOLD_INSTANTIATE_ISAS(BnPartsTest, AllTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
