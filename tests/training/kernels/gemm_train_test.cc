// gemm_at_b / gemm_a_bt of every table (scalar included) against a naive double loop, for
// awkward m, n, k, padded leading dimensions and accumulate on/off.
#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

struct Dims {
  size_t m, n, k;
};

class TrainGemmTest : public TrainKernelTest {
 protected:
  std::vector<Dims> AllDims() const {
    const size_t w = W();
    std::vector<Dims> dims = {
        {1, 1, 1},   {3, 5, 7},   {4, 2 * w + 3, 13}, {5, w, w + 1}, {7, w + 1, 2 * w - 1},
        {17, 12, 3}, {9, 31, 37}, {64, 50, 33}};
    if (w > 1) dims.push_back({2, w - 1, w - 1});
    return dims;
  }

  // transpose_a: C = Aᵀ·B with A stored [k×m]; otherwise C = A·Bᵀ with B stored [n×k].
  void Check(bool transpose_a, const Dims& d, bool accumulate) {
    GemmParams p;
    p.m = d.m, p.n = d.n, p.k = d.k, p.accumulate = accumulate;
    p.lda = (transpose_a ? d.m : d.k) + 3;
    p.ldb = (transpose_a ? d.n : d.k) + 2;
    p.ldc = d.n + 1;
    const size_t a_rows = transpose_a ? d.k : d.m, b_rows = transpose_a ? d.k : d.n;
    const std::vector<float> a = RandomVector(a_rows * p.lda, -1, 1, 21),
                             b = RandomVector(b_rows * p.ldb, -1, 1, 22);
    const std::vector<float> c0 = RandomVector(d.m * p.ldc, -1, 1, 23);
    std::vector<float> want = c0, got = c0;
    for (size_t i = 0; i < d.m; ++i)
      for (size_t j = 0; j < d.n; ++j) {
        double acc = 0.0;
        for (size_t q = 0; q < d.k; ++q)
          acc += transpose_a ? double(a[q * p.lda + i]) * b[q * p.ldb + j]
                             : double(a[i * p.lda + q]) * b[j * p.ldb + q];
        want[i * p.ldc + j] = static_cast<float>(acc + (accumulate ? c0[i * p.ldc + j] : 0.0));
      }
    (transpose_a ? table().gemm_at_b : table().gemm_a_bt)(p, a.data(), b.data(), got.data());
    EXPECT_TRUE(AllClose(want, got, 1e-5f * static_cast<float>(d.k + 1), 1e-5f))
        << (transpose_a ? "AtB" : "ABt") << " m=" << d.m << " n=" << d.n << " k=" << d.k
        << " acc=" << accumulate;
  }
};

TEST_P(TrainGemmTest, AtBMatchesNaiveLoop) {
  for (const Dims& d : AllDims())
    for (bool acc : {false, true}) Check(true, d, acc);
}

TEST_P(TrainGemmTest, ABtMatchesNaiveLoop) {
  for (const Dims& d : AllDims())
    for (bool acc : {false, true}) Check(false, d, acc);
}

EDGEFOLD_INSTANTIATE_ISAS(TrainGemmTest, AllTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
