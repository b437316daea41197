// Folded vs unfolded graphs agree on random models (the compiler's own verify step runs the
// runtime on both); and the comparison does catch a real difference.
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"
#include "verify/verify.h"

namespace edgefold::compiler {
namespace {
using testing::OnnxBuilder;

// A random Conv(+BN)(+act) stack over 1-D or 2-D input, ending in a Gemm + BN head.
onnx::ModelProto RandomModel(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int64_t>(rng() % n); };
  const bool one_d = pick(3) == 0;
  int64_t c = 1 + pick(6), h = one_d ? 1 : 5 + pick(6), w = 5 + pick(8);
  OnnxBuilder b;
  b.Input("x", one_d ? std::vector<int64_t>{1, c, w} : std::vector<int64_t>{1, c, h, w});
  std::string cur = "x";
  const int layers = 1 + static_cast<int>(pick(3));
  for (int l = 0; l < layers; ++l) {
    const std::string p = "l" + std::to_string(l);
    const int64_t group = pick(3) == 0 ? c : (c % 2 == 0 && pick(2) ? 2 : 1);
    const int64_t cout = group == c && group > 1 ? c : group * (1 + pick(4));
    const int64_t k = 1 + 2 * pick(2);
    std::vector<int64_t> wshape = {cout, c / group, k, k};
    if (one_d) wshape = {cout, c / group, k};
    b.Init(p + ".w", wshape,
           testing::RandomVector(static_cast<size_t>(cout * (c / group) * k * (one_d ? 1 : k)),
                                 seed + l));
    const bool bias = pick(2);
    if (bias) b.Init(p + ".b", {cout}, testing::RandomVector(cout, seed + 100 + l));
    auto& conv = b.Node("Conv", {cur, p + ".w", bias ? p + ".b" : ""}, {p + ".c"}, p + ".conv");
    testing::SetInt(conv, "group", group);
    testing::SetString(conv, "auto_pad", "SAME_UPPER");
    testing::AddBatchNorm(b, p + ".bn", p + ".c", p + ".n", cout, seed + 200 + l);
    const char* acts[] = {"Relu", "Sigmoid", "HardSwish", "LeakyRelu"};
    b.Node(acts[pick(4)], {p + ".n"}, {p + ".a"}, p + ".act");
    cur = p + ".a";
    c = cout;
  }
  b.Node("Flatten", {cur}, {"flat"}, "flatten");
  const int64_t k_in = c * h * w, n_out = 2 + pick(6);
  b.Init("head.w", {n_out, k_in}, testing::RandomVector(k_in * n_out, seed + 7));
  b.Init("head.b", {n_out}, testing::RandomVector(n_out, seed + 8));
  auto& g = b.Node("Gemm", {"flat", "head.w", "head.b"}, {"logits"}, "head");
  testing::SetInt(g, "transB", 1);
  testing::AddBatchNorm(b, "head.bn", "logits", "y", n_out, seed + 9);
  b.Output("y");
  return b.model();
}

TEST(FoldedVsUnfolded, RandomModelsAgreeWithin1e5) {
  double worst_abs = 0, worst_rel = 0;
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    CompileOptions o;
    o.verify_rel_tolerance = 1e-5;
    const CompileResult r = CompileModel(RandomModel(seed), o);
    ASSERT_TRUE(r.ok) << "seed " << seed << ": " << r.error;
    ASSERT_TRUE(r.report.verified) << "seed " << seed;
    EXPECT_GT(r.report.batchnorm_folded_backward, 0);
    EXPECT_LE(r.report.verify_max_rel_error, 1e-5);
    worst_abs = std::max(worst_abs, r.report.verify_max_abs_error);
    worst_rel = std::max(worst_rel, r.report.verify_max_rel_error);
  }
  std::printf("folded vs unfolded over 30 random models: max abs %.3g, max rel %.3g\n", worst_abs,
              worst_rel);
}

TEST(FoldedVsUnfolded, ComparisonDetectsDifferentModels) {
  CompileOptions o;
  o.verify = false;
  const CompileResult a = CompileModel(RandomModel(3), o);
  onnx::ModelProto changed = RandomModel(3);
  auto* init = changed.mutable_graph()->mutable_initializer(0);
  for (int i = 0; i < init->float_data_size(); ++i)
    init->set_float_data(i, init->float_data(i) + 0.5f);
  const CompileResult b = CompileModel(changed, o);
  ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
  const VerifyOutcome v = CompareModels(a.model, b.model, 7);
  ASSERT_TRUE(v.ran) << v.error;
  EXPECT_GT(v.max_rel_error, 1e-3);
}

TEST(FoldedVsUnfolded, NoFoldSkipsVerification) {
  CompileOptions o;
  o.fold_batchnorm = false;
  o.fuse_activations = false;
  const CompileResult r = CompileModel(RandomModel(5), o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.report.verified);
  EXPECT_EQ(r.report.batchnorm_folded_backward, 0);
}

}  // namespace
}  // namespace edgefold::compiler
