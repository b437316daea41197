// The golden normalization models (tests/golden/make_golden.py): the tiny ViT exported at opset 13
// (LayerNorm spelled out) compiles to the same ops as at opset 17, its five LayerNorms fused and
// no Reduce left; both match PyTorch's output to 1e-5 of its scale; InstanceNorm and GroupNorm
// CNNs likewise.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::CountOps;

std::vector<float> ReadPb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  onnx::TensorProto t;
  EXPECT_TRUE(t.ParseFromIstream(&f)) << path;
  std::vector<float> v(t.raw_data().size() / sizeof(float));
  std::copy_n(t.raw_data().data(), v.size() * sizeof(float), reinterpret_cast<char*>(v.data()));
  return v;
}

// max |edgefold − PyTorch| / max(1, max |PyTorch|) of case `name`'s output.
double ScaledError(const std::string& name, const std::vector<uint8_t>& model) {
  const std::string dir = std::string(EDGEFOLD_GOLDEN_DATA_DIR) + "/" + name + "/test_data_set_0/";
  const std::vector<float> want = ReadPb(dir + "output_0.pb");
  const std::vector<float> got = testing::RunEfb(model, {ReadPb(dir + "input_0.pb")}).at(0);
  EXPECT_EQ(got.size(), want.size());
  double err = 0, scale = 1;
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    err = std::max(err, static_cast<double>(std::fabs(got[i] - want[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(want[i])));
  }
  std::cout << name << ": max abs error " << err << ", output scale " << scale << "\n";
  return err / scale;
}

CompileResult CompileCase(const std::string& name) {
  return CompileFile(std::string(EDGEFOLD_GOLDEN_DATA_DIR) + "/" + name + "/model.onnx",
                     CompileOptions());
}

TEST(GoldenVit, Opset13LayerNormsFuseAndBothOpsetsMatchPyTorch) {
  const CompileResult r13 = CompileCase("vit_tiny_opset13"), r17 = CompileCase("vit_tiny_opset17");
  ASSERT_TRUE(r13.ok) << r13.error;
  ASSERT_TRUE(r17.ok) << r17.error;
  EXPECT_TRUE(r13.report.verified);  // fused against the spelled-out graph
  for (const CompileResult* r : {&r13, &r17}) {
    EXPECT_EQ(CountOps(r->model, fb::OpType::LayerNorm), 5u);  // 2 per block + the final one
    EXPECT_EQ(CountOps(r->model, fb::OpType::Reduce), 0u);
    EXPECT_EQ(CountOps(r->model, fb::OpType::Softmax), 2u);
    EXPECT_EQ(CountOps(r->model, fb::OpType::MatMul), 4u);  // q·kᵀ and att·v per block
  }
  EXPECT_EQ(r13.report.num_ops, r17.report.num_ops);
  EXPECT_LT(ScaledError("vit_tiny_opset13", r13.model), 1e-5);
  EXPECT_LT(ScaledError("vit_tiny_opset17", r17.model), 1e-5);
}

TEST(GoldenNorm, InstanceAndGroupNormMatchPyTorch) {
  for (const char* name : {"conv_instance_norm", "conv_group_norm"}) {
    const CompileResult r = CompileCase(name);
    ASSERT_TRUE(r.ok) << name << ": " << r.error;
    EXPECT_EQ(CountOps(r.model, fb::OpType::LayerNorm), 1u) << name;
    EXPECT_LT(ScaledError(name, r.model), 1e-5) << name;
  }
}

}  // namespace
}  // namespace edgefold::compiler
