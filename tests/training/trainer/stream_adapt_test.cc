// Streaming BN adaptation on its own (adaptation/stream_adapt.h): plain views of a BatchNorm and
// logits, no trainer. The running statistics move toward each sample by the scheduled momentum,
// the output normalizes with them mixed with the deployed ones, and a window whose entropy rose
// restarts the state.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "adaptation/stream_adapt.h"
#include "kernels/table_for.h"

namespace edgefold::internal {
namespace {

struct Bn {
  static constexpr size_t kChannels = 2, kSpatial = 4;
  std::vector<float> x = {1, 2, 3, 4, -1, 0, 1, 2};  // sample means 2.5 and 0.5
  std::vector<float> y = std::vector<float>(8), gamma = {2, 0.5f}, beta = {0.25f, -1};
  std::vector<float> mean = {0, 0}, var = {1, 1}, deployed_mean = {0, 0}, deployed_var = {1, 1};
  std::vector<float> a = std::vector<float>(2), b = std::vector<float>(2),
                     c = std::vector<float>(2);
  StreamBn View() {
    StreamBn v;
    v.x = x.data(), v.y = y.data(), v.gamma = gamma.data(), v.beta = beta.data();
    v.mean = mean.data(), v.var = var.data();
    v.deployed_mean = deployed_mean.data(), v.deployed_var = deployed_var.data();
    v.scratch[0] = a.data(), v.scratch[1] = b.data(), v.scratch[2] = c.data();
    v.channels = kChannels, v.spatial = kSpatial, v.batch = 1, v.epsilon = 1e-5f;
    return v;
  }
};

TEST(StreamAdapt, StatisticsMoveByTheMomentumAndTheOutputMixesThePrior) {
  Bn bn;
  StreamOptions o;
  o.momentum = 0.5f, o.momentum_min = 0.0f, o.prior = 0.25f, o.variance_floor = 0.0f;
  const StreamState st;  // a fresh start: the first sample's momentum is o.momentum
  ForwardBatchNormStream(bn.View(), 1, o, st, kernels::ScalarTable<kernels::KernelTable>(),
                         kernels::ScalarTable<kernels::TrainKernelTable>());
  const float sample_mean[2] = {2.5f, 0.5f};
  for (size_t ch = 0; ch < 2; ++ch) {
    double sq = 0;
    for (size_t j = 0; j < 4; ++j) sq += std::pow(bn.x[ch * 4 + j] - sample_mean[ch], 2);
    const double sample_var = sq / 3;  // unbiased
    const double mean = 0.5 * sample_mean[ch], var = 0.5 * 1.0 + 0.5 * sample_var;
    EXPECT_NEAR(bn.mean[ch], mean, 1e-6) << ch;
    EXPECT_NEAR(bn.var[ch], var, 1e-5) << ch;
    const double mu = 0.75 * mean, v = 0.75 * var + 0.25;
    for (size_t j = 0; j < 4; ++j) {
      const double want =
          (bn.x[ch * 4 + j] - mu) / std::sqrt(v + 1e-5) * bn.gamma[ch] + bn.beta[ch];
      EXPECT_NEAR(bn.y[ch * 4 + j], want, 1e-5) << ch << " " << j;
    }
  }
  ResetStreamBn(bn.View());
  EXPECT_EQ(bn.mean, bn.deployed_mean);
  EXPECT_EQ(bn.var, bn.deployed_var);
}

TEST(StreamAdapt, AWindowMoreUncertainThanTheFirstRestarts) {
  StreamOptions o;
  o.window = 2, o.entropy_rise = 0.1f;
  StreamState st;
  StreamReport r;
  const std::vector<float> sure = {8, 0, 0, 8, 0, 0};            // two samples of 3 classes
  const std::vector<float> flat = {1, 1, 1, 1, 1, 1};            // entropy log 3 / log 3 = 1
  EXPECT_FALSE(FinishStreamStep(sure.data(), 2, 3, o, st, &r));  // the reference window
  EXPECT_LT(r.entropy, 0.1f);
  EXPECT_EQ(r.samples, 2u);
  EXPECT_GE(st.reference_entropy, 0.0f);
  EXPECT_FALSE(FinishStreamStep(sure.data(), 2, 3, o, st, &r));
  EXPECT_EQ(r.samples, 4u);
  EXPECT_TRUE(FinishStreamStep(flat.data(), 2, 3, o, st, &r));
  EXPECT_NEAR(r.entropy, 1.0f, 1e-6f);
  EXPECT_TRUE(r.reset);
  EXPECT_EQ(r.resets, 1u);
  EXPECT_EQ(r.samples, 0u);
  EXPECT_LT(st.reference_entropy, 0.0f);  // measured again from the next window
  EXPECT_LT(st.decayed, 0.0f);
}

}  // namespace
}  // namespace edgefold::internal
