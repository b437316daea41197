// Gemm forms beyond Y = A·B + bias: transA=1, a C that varies over rows, a C that is an
// activation; and opset-6 PRelu with a per-channel 1-D slope.
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::OnnxBuilder;

// Reference Y = alpha·op(A)·op(B) + beta·C  (A is [M,K] or [K,M] when transA, B is [K,N]).
std::vector<float> GemmRef(const std::vector<float>& a, bool trans_a, const std::vector<float>& b,
                           const std::vector<float>& c, int m, int k, int n, float alpha,
                           float beta) {
  std::vector<float> y(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += (trans_a ? a[p * m + i] : a[i * k + p]) * b[p * n + j];
      y[i * n + j] = static_cast<float>(alpha * acc + beta * c[i * n + j]);
    }
  return y;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
}

TEST(GemmForms, TransposedActivationAAndMatrixBias) {
  const int m = 3, k = 5, n = 4;
  const auto bw = testing::RandomVector(k * n, 1), cw = testing::RandomVector(m * n, 2);
  OnnxBuilder b;
  b.Input("a", {k, m}).Init("b", {k, n}, bw).Init("c", {m, n}, cw);
  auto& g = b.Node("Gemm", {"a", "b", "c"}, {"y"}, "gemm");
  testing::SetInt(g, "transA", 1);
  testing::SetFloat(g, "alpha", 0.5f);
  testing::SetFloat(g, "beta", 2.0f);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* model = testing::ModelOf(r.model);
  EXPECT_EQ(testing::OpsOfType(model, fb::OpType::Transpose).size(), 1u);
  EXPECT_EQ(testing::OpsOfType(model, fb::OpType::Binary).size(), 1u);
  const auto a = testing::RandomVector(k * m, 3);
  ExpectNear(testing::RunEfb(r.model, {a}).at(0), GemmRef(a, true, bw, cw, m, k, n, 0.5f, 2.0f));
}

// torch.addmm(mm(x, w1), x, w2)-style: C is another Gemm's output, scaled by beta.
TEST(GemmForms, ActivationCScaledByBeta) {
  const int m = 2, k = 3, n = 3;
  const auto w1 = testing::RandomVector(k * n, 4), w2 = testing::RandomVector(k * n, 5);
  OnnxBuilder b;
  b.Input("x", {m, k}).Init("w1", {k, n}, w1).Init("w2", {k, n}, w2);
  b.Node("Gemm", {"x", "w1"}, {"c"}, "first");
  testing::SetFloat(b.Node("Gemm", {"x", "w2", "c"}, {"y"}, "second"), "beta", 3.0f);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const auto x = testing::RandomVector(m * k, 6);
  const auto c = GemmRef(x, false, w1, std::vector<float>(m * n, 0), m, k, n, 1, 0);
  ExpectNear(testing::RunEfb(r.model, {x}).at(0), GemmRef(x, false, w2, c, m, k, n, 1, 3));
}

// Opset 6: a 1-D slope of size C is one value per channel (axis 1), not per last-axis entry.
TEST(LegacyPRelu, OneDimSlopeIsPerChannel) {
  OnnxBuilder b(6);
  b.Input("x", {1, 3, 2}).Init("slope", {3}, {0.1f, 0.2f, 0.3f});
  b.Node("PRelu", {"x", "slope"}, {"y"});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> x = {-1, 1, -1, 1, -10, 2};
  ExpectNear(testing::RunEfb(r.model, {x}).at(0), {-0.1f, 1, -0.2f, 1, -3.0f, 2});
}

}  // namespace
}  // namespace edgefold::compiler
