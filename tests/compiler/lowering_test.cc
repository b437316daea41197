// Lowering details: legacy Softmax, pooling with ceil_mode, 1-D conv encoding, PRelu slope,
// MatMul of two activations, Concat axis.
#include <cmath>

#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::NoVerify;
using testing::OnnxBuilder;

// Opset 11 Softmax(axis=1) on [2,3,4] normalizes over the 12 values of each batch row.
TEST(Lowering, LegacySoftmaxFlattensFromAxis) {
  OnnxBuilder b(11);
  b.Input("x", {2, 3, 4});
  testing::SetInt(b.Node("Softmax", {"x"}, {"y"}, "sm"), "axis", 1);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const auto x = testing::RandomVector(24, 3, -2, 2);
  const auto y = testing::RunEfb(r.model, {x}).at(0);
  ASSERT_EQ(y.size(), 24u);
  for (int n = 0; n < 2; ++n) {
    double sum = 0;
    for (int i = 0; i < 12; ++i) sum += std::exp(double(x[n * 12 + i]));
    for (int i = 0; i < 12; ++i)
      EXPECT_NEAR(y[n * 12 + i], std::exp(double(x[n * 12 + i])) / sum, 1e-6);
  }
}

TEST(Lowering, MaxPoolCeilModeOutputShape) {
  OnnxBuilder b;
  b.Input("x", {1, 1, 5, 5});
  auto& p = b.Node("MaxPool", {"x"}, {"y"}, "pool");
  testing::SetInts(p, "kernel_shape", {2, 2});
  testing::SetInts(p, "strides", {2, 2});
  testing::SetInt(p, "ceil_mode", 1);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* m = testing::ModelOf(r.model);
  const fb::Tensor* y = m->tensors()->Get(m->outputs()->Get(0));
  EXPECT_EQ(y->shape()->Get(2), 3);
  EXPECT_EQ(y->shape()->Get(3), 3);
  EXPECT_TRUE(m->operators()->Get(0)->options_as_PoolOptions()->ceil_mode());
}

TEST(Lowering, Conv1dStoredAsHeightOne) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 9}).Init("w", {4, 2, 3}, testing::RandomVector(24, 1));
  auto& c = b.Node("Conv", {"x", "w"}, {"y"}, "conv1d");
  testing::SetInts(c, "pads", {1, 2});
  testing::SetInts(c, "strides", {2});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* m = testing::ModelOf(r.model);
  const auto* o = m->operators()->Get(0)->options_as_ConvOptions();
  EXPECT_EQ(std::vector<int>(o->kernel()->begin(), o->kernel()->end()), (std::vector<int>{1, 3}));
  EXPECT_EQ(std::vector<int>(o->strides()->begin(), o->strides()->end()), (std::vector<int>{1, 2}));
  EXPECT_EQ(std::vector<int>(o->pads()->begin(), o->pads()->end()), (std::vector<int>{0, 1, 0, 2}));
  EXPECT_EQ(m->tensors()->Get(m->outputs()->Get(0))->shape()->size(), 3u);
}

TEST(Lowering, PReluPerChannelSlope) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 2, 2}).Init("slope", {3, 1, 1}, {0.1f, 0.2f, 0.3f});
  b.Node("PRelu", {"x", "slope"}, {"y"}, "prelu");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* m = testing::ModelOf(r.model);
  const fb::Tensor* s = m->tensors()->Get(m->operators()->Get(0)->inputs()->Get(1));
  ASSERT_EQ(s->shape()->size(), 3u);  // ONNX shape kept; numpy broadcast to X
  EXPECT_EQ(s->shape()->Get(0), 3);
  const auto y = testing::RunEfb(r.model, {std::vector<float>(12, -1.0f)}).at(0);
  EXPECT_NEAR(y[0], -0.1f, 1e-7);
  EXPECT_NEAR(y[11], -0.3f, 1e-7);
}

TEST(Lowering, MatMulOfActivationsAndConcat) {
  OnnxBuilder b;
  b.Input("a", {2, 3}).Input("b", {3, 4});
  b.Node("MatMul", {"a", "b"}, {"ab"}, "mm");
  testing::SetInt(b.Node("Concat", {"ab", "ab"}, {"y"}, "cat"), "axis", -1);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* m = testing::ModelOf(r.model);
  EXPECT_EQ(m->operators()->Get(0)->type(), fb::OpType::MatMul);
  EXPECT_EQ(m->operators()->Get(1)->options_as_ConcatOptions()->axis(), 1);
  const auto y =
      testing::RunEfb(
          r.model, {{1, 0, 0, 0, 1, 0}, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}})
          .at(0);
  EXPECT_EQ(y, (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8}));
}

}  // namespace
}  // namespace edgefold::compiler
