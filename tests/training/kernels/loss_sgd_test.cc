// Softmax cross-entropy against a double reference (dz rows sum to 0), and SGD with momentum
// and weight decay against PyTorch's formula over 3 steps, on every table.
#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

class LossSgdTest : public TrainKernelTest {};

TEST_P(LossSgdTest, SoftmaxCrossEntropyMatchesDoubleReference) {
  for (size_t classes : {size_t{1}, size_t{2}, W() + 1, size_t{10}, size_t{37}})
    for (size_t batch : {1, 2, 3, 8}) {
      std::vector<float> z = RandomVector(batch * classes, -6, 6, 51);
      z[0] += 80.0f;  // a large logit: the max shift must keep exp finite
      std::vector<int32_t> labels(batch);
      for (size_t n = 0; n < batch; ++n) labels[n] = static_cast<int32_t>((n * 7 + 3) % classes);
      std::vector<float> dz(z.size(), 9.0f), want_dz(z.size());
      double want_loss = 0.0;
      for (size_t n = 0; n < batch; ++n) {
        const float* zr = z.data() + n * classes;
        double mx = zr[0], sum = 0.0;
        for (size_t j = 0; j < classes; ++j) mx = std::max(mx, double(zr[j]));
        for (size_t j = 0; j < classes; ++j) sum += std::exp(zr[j] - mx);
        want_loss += (mx + std::log(sum) - zr[labels[n]]) / batch;
        for (size_t j = 0; j < classes; ++j)
          want_dz[n * classes + j] =
              static_cast<float>((std::exp(zr[j] - mx) / sum - (int(j) == labels[n])) / batch);
      }
      const float loss =
          table().softmax_cross_entropy(z.data(), labels.data(), dz.data(), batch, classes);
      EXPECT_NEAR(loss, want_loss, 1e-5 * (1 + want_loss))
          << "batch " << batch << " classes " << classes;
      EXPECT_TRUE(AllClose(want_dz, dz, 1e-6f, 1e-5f))
          << "batch " << batch << " classes " << classes;
      for (size_t n = 0; n < batch; ++n) {
        double row = 0.0;
        for (size_t j = 0; j < classes; ++j) row += dz[n * classes + j];
        EXPECT_NEAR(row, 0.0, 1e-6) << "row " << n;
      }
    }
}

// torch.optim.SGD(lr, momentum, weight_decay), dampening 0, nesterov off:
//   d_p = g + wd·p;  buf = d_p (first step) else momentum·buf + d_p;  p −= lr·buf
TEST_P(LossSgdTest, SgdMomentumMatchesPyTorchOverThreeSteps) {
  const float lr = 0.05f, momentum = 0.9f, wd = 1e-3f;
  for (size_t n : AwkwardSizes()) {
    std::vector<float> p = RandomVector(n, -1, 1, 61), v(n, 0.0f);
    std::vector<double> pw(p.begin(), p.end()), buf(n, 0.0);
    for (int step = 0; step < 3; ++step) {
      const std::vector<float> g = RandomVector(n, -1, 1, 62 + step);
      for (size_t i = 0; i < n; ++i) {
        const double d_p = g[i] + double(wd) * pw[i];
        buf[i] = step == 0 ? d_p : momentum * buf[i] + d_p;
        pw[i] -= lr * buf[i];
      }
      table().sgd_momentum(p.data(), g.data(), v.data(), n, lr, momentum, wd);
    }
    EXPECT_TRUE(AllClose(std::vector<float>(pw.begin(), pw.end()), p, 1e-6f, 1e-5f)) << "n " << n;
    EXPECT_TRUE(AllClose(std::vector<float>(buf.begin(), buf.end()), v, 1e-6f, 1e-5f)) << "n " << n;
  }
}

// Per-channel Σ(x − shift), Σ(x − shift)² (streaming BN adaptation) against double sums, with
// an offset far from the shift to show the shift is what keeps Σd² exact enough.
TEST_P(LossSgdTest, ChannelMomentsMatchDoubleSums) {
  for (size_t spatial : AwkwardSizes())
    for (size_t channels : {size_t{1}, size_t{3}}) {
      std::vector<float> x = RandomVector(channels * spatial, -1, 1, 71);
      for (float& v : x) v += 100.0f;
      const std::vector<float> shift = RandomVector(channels, 99.5f, 100.5f, 72);
      std::vector<float> sum_d(channels, 7.0f), sum_d2(channels, 7.0f);
      table().channel_moments(x.data(), shift.data(), sum_d.data(), sum_d2.data(), channels,
                              spatial);
      for (size_t c = 0; c < channels; ++c) {
        double s = 0, q = 0;
        for (size_t i = 0; i < spatial; ++i) {
          const double d = double(x[c * spatial + i]) - shift[c];
          s += d;
          q += d * d;
        }
        EXPECT_NEAR(sum_d[c], s, 1e-4 * (1 + std::fabs(s))) << "spatial " << spatial;
        EXPECT_NEAR(sum_d2[c], q, 1e-4 * (1 + q)) << "spatial " << spatial;
      }
    }
}

EDGEFOLD_INSTANTIATE_ISAS(LossSgdTest, AllTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
