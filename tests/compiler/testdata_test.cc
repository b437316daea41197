// PyTorch-exported ONNX models from libonnx-testdata (opset 6, upgraded to 13): compile,
// run with the runtime and compare with the stored reference outputs.
#include <cmath>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "ir/import.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {

const char* kRoot = "/usr/share/libonnx-testdata/data/pytorch-converted/";

std::vector<float> ReadTensor(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  onnx::TensorProto t;
  if (!t.ParseFromString(s.str())) return {};
  const ir::Tensor v = ir::TensorFromProto(t, path);
  return std::vector<float>(v.data.begin(), v.data.end());
}

class PytorchConverted : public ::testing::TestWithParam<const char*> {};

TEST_P(PytorchConverted, CompilesAndMatchesReference) {
  const std::string dir = std::string(kRoot) + GetParam();
  if (!std::ifstream(dir + "/model.onnx")) GTEST_SKIP() << "libonnx-testdata not installed";
  const CompileResult r = CompileFile(dir + "/model.onnx", CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> x = ReadTensor(dir + "/test_data_set_0/input_0.pb");
  const std::vector<float> expect = ReadTensor(dir + "/test_data_set_0/output_0.pb");
  ASSERT_FALSE(x.empty());
  const std::vector<float> y = testing::RunEfb(r.model, {x}).at(0);
  ASSERT_EQ(y.size(), expect.size());
  double max_err = 0;
  for (size_t i = 0; i < y.size(); ++i)
    max_err = std::max(
        max_err, std::fabs(double(y[i]) - expect[i]) / std::max(1.0, std::fabs(double(expect[i]))));
  EXPECT_LT(max_err, 1e-4) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(
    Models, PytorchConverted,
    ::testing::Values("test_BatchNorm2d_eval", "test_BatchNorm2d_momentum_eval",
                      "test_BatchNorm1d_3d_input_eval", "test_Conv1d", "test_Conv1d_dilated",
                      "test_Conv1d_groups", "test_Conv1d_pad1", "test_Conv1d_pad2",
                      "test_Conv1d_stride", "test_Conv2d", "test_Conv2d_depthwise",
                      "test_Conv2d_depthwise_padded", "test_Conv2d_depthwise_strided",
                      "test_Conv2d_depthwise_with_multiplier", "test_Conv2d_dilated",
                      "test_Conv2d_groups", "test_Conv2d_no_bias", "test_Conv2d_padding",
                      "test_Conv2d_strided", "test_Linear", "test_Linear_no_bias", "test_AvgPool2d",
                      "test_AvgPool2d_stride", "test_LeakyReLU", "test_ConstantPad2d"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      return std::string(info.param).substr(5);
    });

TEST(PytorchConvertedErrors, Conv3dIsRejectedNamingTheNode) {
  const std::string path = std::string(kRoot) + "test_Conv3d/model.onnx";
  if (!std::ifstream(path)) GTEST_SKIP() << "libonnx-testdata not installed";
  const CompileResult r = CompileFile(path, CompileOptions());
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("(op 'Conv')"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace edgefold::compiler
