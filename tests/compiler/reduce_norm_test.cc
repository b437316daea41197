// Reduce ops over any axes (chains for split axis sets, keepdims 0/1, ReduceSum-13's axes input),
// the decomposed LayerNorm fusion (fused and near misses, all against the formula) and
// InstanceNormalization's lowering and refusals naming the node.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::CountOps;
using testing::OnnxBuilder;

// Reduces x [2, 3, 4, 5] over `axes` (sorted) with `fold` on doubles; keepdims does not change
// the values' order.
std::vector<float> ReduceRef(const std::vector<float>& x, const std::vector<int64_t>& axes,
                             double init, const std::function<double(double, double)>& fold,
                             bool mean) {
  const int64_t dims[4] = {2, 3, 4, 5};
  std::vector<int64_t> out_dims(dims, dims + 4);
  for (int64_t a : axes) out_dims[a] = 1;
  std::vector<double> acc(
      static_cast<size_t>(out_dims[0] * out_dims[1] * out_dims[2] * out_dims[3]), init);
  int64_t count = 1;
  for (int64_t a : axes) count *= dims[a];
  for (int64_t i = 0; i < 120; ++i) {
    int64_t idx[4], rest = i;
    for (int d = 3; d >= 0; --d) idx[d] = rest % dims[d], rest /= dims[d];
    int64_t o = 0;
    for (int d = 0; d < 4; ++d) o = o * out_dims[d] + (out_dims[d] == 1 ? 0 : idx[d]);
    acc[o] = fold(acc[o], x[i]);
  }
  std::vector<float> y;
  for (double v : acc) y.push_back(static_cast<float>(mean ? v / count : v));
  return y;
}

TEST(LowerReduce, AnyAxesMatchTheDefinition) {
  struct Case {
    const char* op;
    std::vector<int64_t> axes;
    int keepdims;
    size_t reduce_ops;
  };
  const Case cases[] = {{"ReduceSum", {0, 2}, 0, 2},       {"ReduceMean", {1}, 1, 1},
                        {"ReduceMax", {1, 2}, 0, 1},       {"ReduceSumSquare", {0, 1, 3}, 1, 2},
                        {"ReduceMean", {3}, 0, 1},         {"ReduceSumSquare", {0, 2}, 0, 2},
                        {"ReduceMax", {0, 1, 2, 3}, 0, 1}, {"ReduceMean", {0, 3}, 1, 2}};
  const std::vector<float> x = testing::RandomVector(120, 3, -2, 2);
  for (const Case& c : cases) {
    OnnxBuilder b(13);
    b.Input("x", {2, 3, 4, 5});
    std::vector<std::string> inputs = {"x"};
    if (std::string(c.op) == "ReduceSum") {  // opset 13: axes is an input
      b.InitInt64("axes", {static_cast<int64_t>(c.axes.size())}, c.axes);
      inputs.push_back("axes");
    }
    onnx::NodeProto& n = b.Node(c.op, inputs, {"y"}, "reduce");
    if (inputs.size() == 1) testing::SetInts(n, "axes", c.axes);
    testing::SetInt(n, "keepdims", c.keepdims);
    b.Output("y");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_TRUE(r.ok) << c.op << ": " << r.error;
    EXPECT_EQ(CountOps(r.model, fb::OpType::Reduce), c.reduce_ops) << c.op;
    const std::string op = c.op;
    std::vector<float> want;
    if (op == "ReduceMax")
      want = ReduceRef(
          x, c.axes, -INFINITY, [](double a, double v) { return std::max(a, v); }, false);
    else if (op == "ReduceSumSquare")
      want = ReduceRef(
          x, c.axes, 0, [](double a, double v) { return a + v * v; }, false);
    else
      want = ReduceRef(
          x, c.axes, 0, [](double a, double v) { return a + v; }, op == "ReduceMean");
    const std::vector<float> got = testing::RunEfb(r.model, {x}).at(0);
    ASSERT_EQ(got.size(), want.size()) << op;
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 2e-5 * (1 + std::fabs(want[i]))) << op << " " << i;
  }
}

TEST(LowerReduce, RefusesARepeatedAxisNamingTheNode) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3, 4});
  testing::SetInts(b.Node("ReduceMax", {"x"}, {"y"}, "twice"), "axes", {1, -2});
  b.Output("y", {2, 1, 4});
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("twice"), std::string::npos) << r.error;
}

// LayerNorm as opset-13 PyTorch spells it over the last `k` dims of x [2, 3, 4], with variations.
struct Decomposed {
  std::vector<int64_t> axes = {-1}, second_axes = {-1};
  bool mul_square = false, eps_const = true, with_affine = true, d_is_output = false;
  std::vector<int64_t> gamma_dims = {4};
};

onnx::ModelProto DecomposedLayerNorm(const Decomposed& d) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3, 4});
  int64_t gamma_n = 1;
  for (int64_t v : d.gamma_dims) gamma_n *= v;
  b.Init("two", {}, {2.0f}).Init("eps", {}, {1e-5f});
  b.Init("gamma", d.gamma_dims, testing::RandomVector(static_cast<size_t>(gamma_n), 4, 0.5f, 1.5f));
  b.Init("beta", {4}, testing::RandomVector(4, 5));
  testing::SetInts(b.Node("ReduceMean", {"x"}, {"m"}, "ln/ReduceMean"), "axes", d.axes);
  b.Node("Sub", {"x", "m"}, {"d"}, "ln/Sub");
  if (d.mul_square)
    b.Node("Mul", {"d", "d"}, {"p"}, "ln/Mul_sq");
  else
    b.Node("Pow", {"d", "two"}, {"p"}, "ln/Pow");
  testing::SetInts(b.Node("ReduceMean", {"p"}, {"v"}, "ln/ReduceMean_1"), "axes", d.second_axes);
  if (d.eps_const) {
    b.Node("Add", {"v", "eps"}, {"ve"}, "ln/Add");
  } else {
    b.Input("eps_in", {1});
    b.Node("Add", {"v", "eps_in"}, {"ve"}, "ln/Add");
  }
  b.Node("Sqrt", {"ve"}, {"s"}, "ln/Sqrt");
  b.Node("Div", {"d", "s"},
         d.with_affine ? std::vector<std::string>{"n"} : std::vector<std::string>{"y"}, "ln/Div");
  if (d.with_affine) {
    b.Node("Mul", {"n", "gamma"}, {"g"}, "ln/Mul");
    b.Node("Add", {"g", "beta"}, {"y"}, "ln/Add_1");
  }
  b.Output("y");
  if (d.d_is_output) b.Output("d");
  return b.model();
}

// y over the last `k` dims of x [2, 3, 4], γ [.., 4] broadcast (or none), β [4].
std::vector<float> LayerNormRef(const std::vector<float>& x, int k, const Decomposed& d) {
  const std::vector<float> gamma =
      testing::RandomVector(d.gamma_dims.size() == 2 ? 12 : 4, 4, 0.5f, 1.5f);
  const std::vector<float> beta = testing::RandomVector(4, 5);
  const size_t cols = k == 1 ? 4 : 12, rows = 24 / cols;
  std::vector<float> y(24);
  for (size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (size_t c = 0; c < cols; ++c) mean += x[r * cols + c];
    mean /= cols;
    for (size_t c = 0; c < cols; ++c) var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
    var /= cols;
    for (size_t c = 0; c < cols; ++c) {
      const size_t i = r * cols + c;
      const double h = (x[i] - mean) / std::sqrt(var + 1e-5);
      y[i] =
          static_cast<float>(d.with_affine ? h * gamma[(i % 12) % gamma.size()] + beta[i % 4] : h);
    }
  }
  return y;
}

TEST(FuseLayerNorm, Opset13PatternBecomesOneLayerNorm) {
  Decomposed last, two_dims, mul_square, plain;
  two_dims.axes = two_dims.second_axes = {-2, -1};
  two_dims.gamma_dims = {3, 4};
  mul_square.mul_square = true;
  plain.with_affine = false;
  const std::vector<float> x = testing::RandomVector(24, 6, -3, 3);
  for (const Decomposed* d : {&last, &two_dims, &mul_square, &plain}) {
    const CompileResult r =
        CompileModel(DecomposedLayerNorm(*d), CompileOptions());  // verified vs unfused
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.report.verified);
    const fb::Model* m = testing::ModelOf(r.model);
    ASSERT_EQ(m->operators()->size(), 1u);
    EXPECT_EQ(m->operators()->Get(0)->type(), fb::OpType::LayerNorm);
    const std::vector<float> want = LayerNormRef(x, d == &two_dims ? 2 : 1, *d);
    EXPECT_LT(testing::MaxRelError(testing::RunEfb(r.model, {x}).at(0), want), 1e-5);
  }
}

// Not a LayerNorm: the second mean over other axes, ε an input, the centred value also a graph
// output. Nothing fuses; the means (a Reduce, or a GlobalPool for the last of three dims) compute
// what the graph says. γ varying over a dim that is not normalized: the LayerNorm fuses without
// it and the Mul and Add stay.
TEST(FuseLayerNorm, NearMissesStayUnfusedAndCorrect) {
  Decomposed other_axes, eps_input, gamma_rows, d_out;
  other_axes.second_axes = {-2};
  eps_input.eps_const = false;
  gamma_rows.gamma_dims = {3, 4};
  d_out.d_is_output = true;
  const std::vector<float> x = testing::RandomVector(24, 6, -3, 3);
  for (const Decomposed* d : {&other_axes, &eps_input, &gamma_rows, &d_out}) {
    const CompileResult r = CompileModel(DecomposedLayerNorm(*d), CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    const size_t means =
        CountOps(r.model, fb::OpType::Reduce) + CountOps(r.model, fb::OpType::GlobalPool);
    if (d == &gamma_rows) {
      EXPECT_EQ(CountOps(r.model, fb::OpType::LayerNorm), 1u);
      EXPECT_EQ(CountOps(r.model, fb::OpType::Binary), 2u);
      EXPECT_EQ(means, 0u);
    } else {
      EXPECT_EQ(CountOps(r.model, fb::OpType::LayerNorm), 0u);
      EXPECT_EQ(means, 2u);
    }
    std::vector<std::vector<float>> inputs = {x};
    if (d == &eps_input) inputs.push_back({1e-5f});
    const std::vector<float> got = testing::RunEfb(r.model, inputs).at(0);
    if (d != &other_axes) {
      EXPECT_LT(testing::MaxRelError(got, LayerNormRef(x, 1, *d)), 1e-5);
      continue;
    }
    // (x − mean over the last dim) / √(mean over dim 1 of its square + ε), then γ, β.
    const std::vector<float> gamma = testing::RandomVector(4, 4, 0.5f, 1.5f),
                             beta = testing::RandomVector(4, 5);
    for (size_t n = 0; n < 2; ++n) {
      double dv[3][4], m[3] = {0, 0, 0};
      for (size_t c = 0; c < 3; ++c)
        for (size_t w = 0; w < 4; ++w) m[c] += x[n * 12 + c * 4 + w] / 4.0;
      for (size_t c = 0; c < 3; ++c)
        for (size_t w = 0; w < 4; ++w) dv[c][w] = x[n * 12 + c * 4 + w] - m[c];
      for (size_t w = 0; w < 4; ++w) {
        const double v = (dv[0][w] * dv[0][w] + dv[1][w] * dv[1][w] + dv[2][w] * dv[2][w]) / 3.0;
        for (size_t c = 0; c < 3; ++c)
          EXPECT_NEAR(got[n * 12 + c * 4 + w], dv[c][w] / std::sqrt(v + 1e-5) * gamma[w] + beta[w],
                      1e-4);
      }
    }
  }
}

onnx::ModelProto InstanceNormModel(const std::vector<int64_t>& scale_dims, float eps) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3, 4, 5});
  int64_t n = 1;
  for (int64_t v : scale_dims) n *= v;
  b.Init("scale", scale_dims, testing::RandomVector(static_cast<size_t>(n), 7, 0.5f, 1.5f));
  b.Init("bias", {3}, testing::RandomVector(3, 8));
  testing::SetFloat(b.Node("InstanceNormalization", {"x", "scale", "bias"}, {"y"}, "inorm"),
                    "epsilon", eps);
  b.Output("y");
  return b.model();
}

TEST(LowerInstanceNorm, MatchesTheDefinitionWithItsEpsilon) {
  const float eps = 0.5f;  // large, so a wrong ε shows
  const CompileResult r = CompileModel(InstanceNormModel({3}, eps), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> x = testing::RandomVector(120, 9, -2, 2);
  const std::vector<float> scale = testing::RandomVector(3, 7, 0.5f, 1.5f),
                           bias = testing::RandomVector(3, 8);
  const std::vector<float> y = testing::RunEfb(r.model, {x}).at(0);
  for (size_t plane = 0; plane < 6; ++plane) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < 20; ++i) mean += x[plane * 20 + i] / 20.0;
    for (size_t i = 0; i < 20; ++i)
      var += (x[plane * 20 + i] - mean) * (x[plane * 20 + i] - mean) / 20.0;
    for (size_t i = 0; i < 20; ++i) {
      const double want =
          (x[plane * 20 + i] - mean) / std::sqrt(var + eps) * scale[plane % 3] + bias[plane % 3];
      EXPECT_NEAR(y[plane * 20 + i], want, 1e-5) << plane << " " << i;
    }
  }
}

TEST(LowerInstanceNorm, RefusesScaleOfTheWrongShapeNamingTheNode) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{4}, std::vector<int64_t>{3, 1}}) {
    const CompileResult r = CompileModel(InstanceNormModel(dims, 1e-5f), CompileOptions());
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("inorm"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("one value per channel"), std::string::npos) << r.error;
  }
}

}  // namespace
}  // namespace edgefold::compiler
