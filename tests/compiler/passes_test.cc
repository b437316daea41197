// Identity/Dropout removal, constant folding of shape chains (incl. Equal/Where), activation fusion.
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::NoVerify;
using testing::OnnxBuilder;

TEST(RemoveIdentity, DropsIdentityAndDropout) {
  OnnxBuilder b;
  b.Input("x", {1, 4});
  b.Node("Identity", {"x"}, {"a"});
  b.Node("Relu", {"a"}, {"r"});
  b.Node("Dropout", {"r"}, {"y"});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.nodes_removed, 2);
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  EXPECT_EQ(m->operators()->Get(0)->type(), fb::OpType::Activation);
  const auto out = testing::RunEfb(r.model, {{-1, 2, -3, 4}}).at(0);
  EXPECT_EQ(out, (std::vector<float>{0, 2, 0, 4}));
}

// PyTorch's x.view(x.size(0), -1): Shape → Gather → Unsqueeze → Concat → Reshape.
TEST(FoldConstants, ShapeGatherUnsqueezeConcatReshape) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 3, 4});
  b.InitInt64("idx0", {}, {0}).InitInt64("minus1", {1}, {-1}).InitInt64("axes0", {1}, {0});
  b.Node("Shape", {"x"}, {"s"});
  b.Node("Gather", {"s", "idx0"}, {"n"});
  b.Node("Unsqueeze", {"n", "axes0"}, {"n1"});
  b.Node("Concat", {"n1", "minus1"}, {"shape"}).add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  b.Node("Reshape", {"x", "shape"}, {"y"}, "flatten");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.nodes_removed, 4);
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  EXPECT_EQ(m->operators()->Get(0)->type(), fb::OpType::Reshape);
  const fb::Tensor* y = m->tensors()->Get(m->outputs()->Get(0));
  ASSERT_EQ(y->shape()->size(), 2u);
  EXPECT_EQ(y->shape()->Get(0), 1);
  EXPECT_EQ(y->shape()->Get(1), 24);
}

// The model compiled to one op: the constant its second operand folded to (empty on failure).
std::vector<float> FoldedOperand(const onnx::ModelProto& model) {
  const CompileResult r = CompileModel(model, NoVerify());
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return {};
  const fb::Model* m = testing::ModelOf(r.model);
  EXPECT_EQ(m->operators()->size(), 1u);
  if (m->operators()->size() != 1) return {};
  return testing::ConstData(m, m->operators()->Get(0)->inputs()->Get(1));
}

TEST(FoldConstants, ConstantArithmeticAndTranspose) {
  OnnxBuilder b;
  b.Input("x", {2, 3}).Init("a", {3, 2}, {1, 2, 3, 4, 5, 6}).Init("two", {}, {2});
  b.Node("Transpose", {"a"}, {"at"});
  b.Node("Mul", {"at", "two"}, {"at2"});
  b.Node("Add", {"x", "at2"}, {"y"});
  b.Output("y");
  const std::vector<float> folded = FoldedOperand(b.model());
  EXPECT_EQ(folded, (std::vector<float>{2, 6, 10, 4, 8, 12}));
}

// PyTorch's expand(n, -1): Where(Equal(shape, -1), 1, shape) as the Expand's shape folds away.
TEST(FoldConstants, EqualAndWhereOfExpandShape) {
  OnnxBuilder b;
  b.Input("x", {2, 3}).Init("c", {1, 3}, {1, 2, 3});
  b.InitInt64("s", {2}, {2, -1}).InitInt64("neg", {2}, {-1, -1}).InitInt64("one", {2}, {1, 1});
  b.Node("Equal", {"s", "neg"}, {"eq"});
  b.Node("Where", {"eq", "one", "s"}, {"shape"});
  b.Node("Expand", {"c", "shape"}, {"e"});
  b.Node("Add", {"x", "e"}, {"y"});
  b.Output("y");
  const std::vector<float> folded = FoldedOperand(b.model());
  EXPECT_EQ(folded, (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

struct FuseCase {
  const char* act;
  fb::ActivationKind kind;
};

class FuseActivation : public ::testing::TestWithParam<FuseCase> {};

TEST_P(FuseActivation, IntoConv) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 4, 4}).Init("w", {3, 2, 3, 3}, testing::RandomVector(54, 2));
  b.Node("Conv", {"x", "w"}, {"c"}, "conv");
  b.Node(GetParam().act, {"c"}, {"y"}, "act");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.activations_fused, 1);
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  const auto* opt = m->operators()->Get(0)->options_as_ConvOptions();
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->activation()->kind(), GetParam().kind);
}

INSTANTIATE_TEST_SUITE_P(Kinds, FuseActivation,
                         ::testing::Values(FuseCase{"Relu", fb::ActivationKind::Relu},
                                           FuseCase{"Sigmoid", fb::ActivationKind::Sigmoid},
                                           FuseCase{"LeakyRelu", fb::ActivationKind::LeakyRelu},
                                           FuseCase{"HardSigmoid", fb::ActivationKind::HardSigmoid},
                                           FuseCase{"HardSwish", fb::ActivationKind::HardSwish}));

TEST(FuseActivationClip, MinMaxFromInputs) {
  OnnxBuilder b;
  b.Input("x", {1, 4})
      .Init("w", {4, 3}, testing::RandomVector(12, 2))
      .Init("lo", {}, {0})
      .Init("hi", {}, {6});
  b.Node("MatMul", {"x", "w"}, {"h"}, "fc");
  b.Node("Clip", {"h", "lo", "hi"}, {"y"}, "relu6");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* m = testing::ModelOf(r.model);
  ASSERT_EQ(m->operators()->size(), 1u);
  const auto* act = m->operators()->Get(0)->options_as_GemmOptions()->activation();
  EXPECT_EQ(act->kind(), fb::ActivationKind::Clip);
  EXPECT_EQ(act->alpha(), 0.0f);
  EXPECT_EQ(act->beta(), 6.0f);
}

TEST(FuseActivationRule, NotFusedWhenProducerHasAnotherConsumer) {
  OnnxBuilder b;
  b.Input("x", {1, 4}).Init("w", {4, 3}, testing::RandomVector(12, 2));
  b.Node("MatMul", {"x", "w"}, {"h"}, "fc");
  b.Node("Relu", {"h"}, {"y"}, "relu");
  b.Node("Sigmoid", {"h"}, {"z"}, "sig");
  b.Output("y").Output("z");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.activations_fused, 0);
  EXPECT_EQ(testing::ModelOf(r.model)->operators()->size(), 3u);
}

TEST(DynamicDims, SymbolicBatchDefaultsToOne) {
  OnnxBuilder b;
  b.Input("x", {-1, 4});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), NoVerify());
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Tensor* x =
      testing::ModelOf(r.model)->tensors()->Get(testing::ModelOf(r.model)->inputs()->Get(0));
  EXPECT_EQ(x->shape()->Get(0), 1);
  EXPECT_EQ(x->shape()->Get(1), 4);
}

TEST(DynamicDims, InputShapeOptionResolvesThem) {
  OnnxBuilder b;
  b.Input("x", {-1, 3, -1, -1});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  CompileOptions o = NoVerify();
  o.input_shapes["x"] = {2, 3, 8, 8};
  const CompileResult r = CompileModel(b.model(), o);
  ASSERT_TRUE(r.ok) << r.error;
  const fb::Model* m = testing::ModelOf(r.model);
  const fb::Tensor* y = m->tensors()->Get(m->outputs()->Get(0));
  EXPECT_EQ(y->bytes(), 2u * 3 * 8 * 8 * 4);
}

}  // namespace
}  // namespace edgefold::compiler
