// Bad input gives an error naming the node and op (or input / field), never a crash.
#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using ::testing::HasSubstr;
using testing::OnnxBuilder;

CompileResult ConvBn(float var3, float gamma1) {
  OnnxBuilder b;
  b.Input("x", {1, 4, 3, 3}).Init("w", {4, 4, 1, 1}, testing::RandomVector(16, 1));
  b.Node("Conv", {"x", "w"}, {"c"}, "conv1");
  b.Init("g", {4}, {1, gamma1, 1, 1}).Init("b", {4}, {0, 0, 0, 0}).Init("m", {4}, {0, 0, 0, 0});
  b.Init("v", {4}, {1, 1, 1, var3});
  b.Node("BatchNormalization", {"c", "g", "b", "m", "v"}, {"y"}, "bn1");
  b.Output("y");
  return CompileModel(b.model(), CompileOptions());
}

TEST(Errors, NegativeVarianceNamesNodeAndField) {
  const CompileResult r = ConvBn(-0.5f, 1.0f);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error, "BatchNormalization 'bn1': input 'running_var'[3] = -0.5 is negative");
}

TEST(Errors, NanGammaNamesNodeAndField) {
  const CompileResult r = ConvBn(1.0f, std::numeric_limits<float>::quiet_NaN());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("BatchNormalization 'bn1'"));
  EXPECT_THAT(r.error, HasSubstr("'gamma'[1]"));
  EXPECT_THAT(r.error, HasSubstr("NaN"));
}

TEST(Errors, InfVarianceAlsoRejectedWithNoFold) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 3, 3});
  b.Init("g", {2}, {1, 1}).Init("b", {2}, {0, 0}).Init("m", {2}, {0, 0});
  b.Init("v", {2}, {1, std::numeric_limits<float>::infinity()});
  b.Node("BatchNormalization", {"x", "g", "b", "m", "v"}, {"y"}, "bn7");
  b.Output("y");
  CompileOptions o;
  o.fold_batchnorm = false;
  const CompileResult r = CompileModel(b.model(), o);
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("'bn7': input 'running_var'[1] = inf is infinite"));
}

TEST(Errors, UnsupportedOpNamesNodeAndOp) {
  OnnxBuilder b;
  b.Input("x", {1, 4});
  b.Node("Relu", {"x"}, {"a"}, "r");
  b.Node("Sin", {"a"}, {"y"}, "my_sin");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error, "node 'my_sin' (op 'Sin'): unsupported op");
}

TEST(Errors, UnresolvableDynamicDimNamesInput) {
  OnnxBuilder b;
  b.Input("image", {1, 3, -1, 8});
  b.Node("Relu", {"image"}, {"y"});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("input 'image' has dynamic dim 2"));
  EXPECT_THAT(r.error, HasSubstr("--input-shape"));
}

TEST(Errors, InputShapeForUnknownInput) {
  OnnxBuilder b;
  b.Input("x", {1, 4});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  CompileOptions o;
  o.input_shapes["nope"] = {1, 4};
  const CompileResult r = CompileModel(b.model(), o);
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("'nope'"));
}

TEST(Errors, MalformedBytes) {
  const std::string path = ::testing::TempDir() + "/garbage.onnx";
  std::vector<uint8_t> junk = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02, 0x03};
  std::string err;
  ASSERT_TRUE(WriteFileAtomic(path, junk, &err)) << err;
  const CompileResult r = CompileFile(path, CompileOptions());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("garbage.onnx"));
  EXPECT_THAT(r.error, HasSubstr("parse"));
  const CompileResult missing = CompileFile(path + ".missing", CompileOptions());
  EXPECT_FALSE(missing.ok);
}

TEST(Errors, BadAttributeNamesNodeAndAttribute) {
  OnnxBuilder b;
  b.Input("x", {1, 4, 5, 5}).Init("w", {4, 4, 3, 3}, testing::RandomVector(144, 1));
  auto& c = b.Node("Conv", {"x", "w"}, {"y"}, "conv_bad");
  testing::SetString(c, "auto_pad", "SAME_SIDEWAYS");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("conv_bad"));
  EXPECT_THAT(r.error, HasSubstr("auto_pad"));
}

TEST(Errors, CheckerFailureNamesModel) {
  OnnxBuilder b;
  b.Input("x", {1, 4});
  b.Node("Relu", {"x", "x", "x"}, {"y"}, "relu_too_many");  // Relu takes one input
  b.Output("y");
  CompileOptions o;
  o.model_name = "bad.onnx";
  const CompileResult r = CompileModel(b.model(), o);
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("model 'bad.onnx'"));
}

TEST(Errors, ModeOtherThanConstantPadIsUnsupported) {
  OnnxBuilder b;
  b.Input("x", {1, 1, 4, 4}).InitInt64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
  auto& p = b.Node("Pad", {"x", "pads"}, {"y"}, "pad_reflect");
  testing::SetString(p, "mode", "reflect");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("node 'pad_reflect' (op 'Pad')"));
  EXPECT_THAT(r.error, HasSubstr("mode"));
}

}  // namespace
}  // namespace edgefold::compiler

namespace edgefold::compiler {
namespace {

using ::testing::HasSubstr;
using testing::OnnxBuilder;

TEST(Errors, ZeroSizedInputDimIsNotTreatedAsDynamic) {
  for (int dim : {0, 2}) {
    OnnxBuilder b;
    std::vector<int64_t> shape = {1, 3, 8, 8};
    shape[dim] = 0;
    b.Input("image", shape);
    b.Node("Relu", {"image"}, {"y"});
    b.Output("y");
    onnx::ModelProto m = b.model();
    auto* d = m.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(dim);
    d->set_dim_value(0);
    const CompileResult r = CompileModel(m, CompileOptions());
    ASSERT_FALSE(r.ok) << "dim " << dim;
    EXPECT_THAT(r.error, HasSubstr("input 'image' has zero-sized dim " + std::to_string(dim)));
  }
}

}  // namespace
}  // namespace edgefold::compiler
