// Every SIMD training table's BatchNorm forward/backward against the scalar reference, over
// awkward spatial sizes (1, W−1, W, W+1, 13, 2W+3, 1031), channel counts and batches 1/2/3.
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

class BnTrainSimdTest : public TrainKernelTest {
 protected:
  std::vector<BnShape> Shapes() const {
    std::vector<BnShape> shapes;
    for (size_t batch : {1, 2, 3})
      for (size_t spatial : AwkwardSizes()) shapes.push_back({batch, 3, spatial});
    for (size_t channels : {size_t{1}, W() + 1, size_t{13}})
      shapes.push_back({2, channels, W() + 1});
    return shapes;
  }

  // Forward of both tables on x (offset by `shift`), then backward on random dy. `out_offset`
  // shifts y/xhat/dx off the vector alignment (the streamed path peels to alignment).
  void Check(const BnShape& s, float shift, size_t out_offset = 0) {
    const size_t n = s.batch * s.channels * s.spatial, c = s.channels;
    std::vector<float> x = RandomVector(n, -2.0f, 3.0f, 11);
    for (float& v : x) v += shift;
    const std::vector<float> gamma = RandomVector(c, 0.5f, 1.5f, 12),
                             beta = RandomVector(c, -1, 1, 13);
    const std::vector<float> dy = RandomVector(n, -1, 1, 14);
    std::vector<float> y_r(n), h_r(n), mu_r(c), var_r(c), is_r(c), mu_s(c), var_s(c), is_s(c);
    std::vector<float> y_buf(n + out_offset), h_buf(n + 2 * out_offset), dx_buf(n + out_offset);
    float* const y_out = y_buf.data() + out_offset;
    float* const h_out = h_buf.data() + 2 * out_offset;  // misaligned differently from y
    ref::BatchnormTrainForward(x.data(), gamma.data(), beta.data(), 1e-5f, y_r.data(), h_r.data(),
                               mu_r.data(), var_r.data(), is_r.data(), s.batch, c, s.spatial);
    table().batchnorm_train_forward(x.data(), gamma.data(), beta.data(), 1e-5f, y_out, h_out,
                                    mu_s.data(), var_s.data(), is_s.data(), s.batch, c, s.spatial);
    const std::vector<float> y_s(y_out, y_out + n), h_s(h_out, h_out + n);
    EXPECT_TRUE(AllClose(mu_r, mu_s, 1e-6f, 1e-6f)) << Describe(s) << " mean";
    EXPECT_TRUE(AllClose(var_r, var_s, 1e-6f, 2e-5f)) << Describe(s) << " var";
    EXPECT_TRUE(AllClose(is_r, is_s, 0.0f, 2e-5f)) << Describe(s) << " inv_std";
    EXPECT_TRUE(AllClose(h_r, h_s, 2e-5f, 2e-5f)) << Describe(s) << " xhat";
    EXPECT_TRUE(AllClose(y_r, y_s, 2e-5f, 2e-5f)) << Describe(s) << " y";

    std::vector<float> y_nox(n);  // xhat == nullptr: the same y (up to the peel's scalar rounding)
    table().batchnorm_train_forward(x.data(), gamma.data(), beta.data(), 1e-5f, y_nox.data(),
                                    nullptr, mu_s.data(), var_s.data(), is_s.data(), s.batch, c,
                                    s.spatial);
    EXPECT_TRUE(AllClose(y_s, y_nox, 1e-6f, 1e-6f)) << Describe(s) << " y without xhat";

    std::vector<float> dx_r(n), dg_r(c), db_r(c), dg_s(c, 7.0f), db_s(c, 7.0f);
    ref::BatchnormBackward(dy.data(), h_r.data(), gamma.data(), is_r.data(), dx_r.data(),
                           dg_r.data(), db_r.data(), s.batch, c, s.spatial);
    table().batchnorm_backward(dy.data(), h_r.data(), gamma.data(), is_r.data(),
                               dx_buf.data() + out_offset, dg_s.data(), db_s.data(), s.batch, c,
                               s.spatial);
    const std::vector<float> dx_s(dx_buf.begin() + out_offset, dx_buf.end());
    const float m = static_cast<float>(s.batch * s.spatial);
    EXPECT_TRUE(AllClose(db_r, db_s, 2e-6f * m, 1e-5f)) << Describe(s) << " dbeta";
    EXPECT_TRUE(AllClose(dg_r, dg_s, 2e-6f * m, 1e-5f)) << Describe(s) << " dgamma";
    EXPECT_TRUE(AllClose(dx_r, dx_s, 2e-5f, 2e-5f)) << Describe(s) << " dx";
  }
};

TEST_P(BnTrainSimdTest, MatchesReference) {
  for (const BnShape& s : Shapes()) Check(s, 0.0f);
}

TEST_P(BnTrainSimdTest, MatchesReferenceWithLargeMean) {
  for (const BnShape& s : Shapes()) Check(s, 50.0f);
}

// Outputs of ≥ 16 MiB take the streaming-store path (train_stream_store.h); outputs off the
// register alignment make it peel.
TEST_P(BnTrainSimdTest, MatchesReferenceOnStreamedOutputs) {
  const BnShape big = {2, 3, (size_t{1} << 20) - 5};  // 2·3·(2^20 − 5) floats = 24 MiB
  Check(big, 0.0f, 0);
  Check(big, 0.0f, 3);
}

EDGEFOLD_INSTANTIATE_ISAS(BnTrainSimdTest, SimdTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
