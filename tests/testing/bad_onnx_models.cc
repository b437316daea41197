#include "testing/bad_onnx_models.h"

#include <cmath>
#include <vector>

#include "testing/onnx_builder.h"

namespace edgefold::testing {
namespace {

// An initializer of `dims` holding 0.5 + 0.25·sin(0.7·i).
void AddInitializer(OnnxBuilder& b, const std::string& name, const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = 0.5f + 0.25f * std::sin(0.7f * static_cast<float>(i));
  b.Init(name, dims, values);
}

}  // namespace

onnx::ModelProto ConvBnModel() {
  OnnxBuilder b(13, 8);
  b.GraphName("conv_bn").Input("x", {1, 2, 5, 5}).Output("y", {1, 4});
  AddInitializer(b, "conv.w", {3, 2, 3, 3});
  AddInitializer(b, "conv.b", {3});
  for (const char* p : {"bn.gamma", "bn.beta", "bn.mean", "bn.var"}) AddInitializer(b, p, {3});
  AddInitializer(b, "fc.w", {4, 3});
  AddInitializer(b, "fc.b", {4});
  onnx::NodeProto& conv = b.Node("Conv", {"x", "conv.w", "conv.b"}, {"c"}, "conv");
  SetInts(conv, "kernel_shape", {3, 3});
  SetInts(conv, "pads", {1, 1, 1, 1});
  b.Node("BatchNormalization", {"c", "bn.gamma", "bn.beta", "bn.mean", "bn.var"}, {"b"}, "bn");
  b.Node("Relu", {"b"}, {"r"}, "relu");
  b.Node("GlobalAveragePool", {"r"}, {"p"}, "gap");
  b.Node("Flatten", {"p"}, {"f"}, "flatten");
  SetInt(b.Node("Gemm", {"f", "fc.w", "fc.b"}, {"y"}, "fc"), "transB", 1);
  return b.model();
}

}  // namespace edgefold::testing
