#include "testing/tiny_onnx_models.h"

#include <algorithm>
#include <cmath>

#include "testing/onnx_builder.h"

namespace edgefold::testing {
namespace {

// Deterministic, sign-varying weights: w_i = sin(seed + 0.7·i) / 2.
std::vector<float> Weights(size_t n, float seed) {
  std::vector<float> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = 0.5f * std::sin(seed + 0.7f * static_cast<float>(i));
  return w;
}

struct ConvBnWeights {
  std::vector<float> conv_w = Weights(3 * 2 * 3 * 3, 0.1f), conv_b = Weights(3, 1.0f);
  std::vector<float> gamma = {1.5f, 0.5f, -0.8f}, beta = {0.1f, -0.2f, 0.3f};
  std::vector<float> mean = {0.05f, -0.1f, 0.2f}, var = {0.9f, 1.6f, 0.4f};
  std::vector<float> gemm_w = Weights(4 * 3, 2.0f), gemm_b = Weights(4, 3.0f);
  float eps = 1e-5f;
};

// Opset 13, IR version 8; nodes are named <op>_<output>.
onnx::NodeProto& AddNode(OnnxBuilder& b, const std::string& op,
                         const std::vector<std::string>& inputs, const std::string& output) {
  return b.Node(op, inputs, {output}, op + "_" + output);
}

bool Write(const OnnxBuilder& b, const std::string& path, std::string* error) {
  if (SaveModel(b.model(), path)) return true;
  *error = "cannot write " + path;
  return false;
}

}  // namespace

bool WriteConvBnModel(const std::string& path, std::string* error) {
  const ConvBnWeights w;
  OnnxBuilder b(13, 8);
  b.GraphName("conv_bn").Input("x", {1, 2, 5, 5}).Output("y", {1, 4});
  b.Init("W", {3, 2, 3, 3}, w.conv_w).Init("B", {3}, w.conv_b);
  b.Init("gamma", {3}, w.gamma)
      .Init("beta", {3}, w.beta)
      .Init("mean", {3}, w.mean)
      .Init("var", {3}, w.var);
  b.Init("Wg", {4, 3}, w.gemm_w).Init("Bg", {4}, w.gemm_b);
  onnx::NodeProto& conv = AddNode(b, "Conv", {"x", "W", "B"}, "c");
  SetInts(conv, "kernel_shape", {3, 3});
  SetInts(conv, "pads", {1, 1, 1, 1});
  AddNode(b, "BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, "bn");
  AddNode(b, "Relu", {"bn"}, "r");
  AddNode(b, "GlobalAveragePool", {"r"}, "p");
  AddNode(b, "Flatten", {"p"}, "f");
  SetInt(AddNode(b, "Gemm", {"f", "Wg", "Bg"}, "y"), "transB", 1);
  return Write(b, path, error);
}

std::vector<float> ConvBnReference(const std::vector<float>& x) {
  const ConvBnWeights w;
  std::vector<float> pooled(3, 0.0f);
  for (int co = 0; co < 3; ++co) {
    for (int oy = 0; oy < 5; ++oy) {
      for (int ox = 0; ox < 5; ++ox) {
        double acc = w.conv_b[co];
        for (int ci = 0; ci < 2; ++ci) {
          for (int ky = 0; ky < 3; ++ky) {
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = oy + ky - 1, ix = ox + kx - 1;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
              acc +=
                  double(w.conv_w[((co * 2 + ci) * 3 + ky) * 3 + kx]) * x[(ci * 5 + iy) * 5 + ix];
            }
          }
        }
        // BN: (c − μ)·γ/√(σ²+ε) + β, then Relu, then the mean over 5×5.
        const double bn =
            (acc - w.mean[co]) * w.gamma[co] / std::sqrt(w.var[co] + w.eps) + w.beta[co];
        pooled[co] += static_cast<float>(std::max(bn, 0.0) / 25.0);
      }
    }
  }
  std::vector<float> y(4);
  for (int o = 0; o < 4; ++o) {
    double acc = w.gemm_b[o];
    for (int k = 0; k < 3; ++k) acc += double(w.gemm_w[o * 3 + k]) * pooled[k];  // transB
    y[o] = static_cast<float>(acc);
  }
  return y;
}

bool WriteTwoInputModel(const std::string& path, std::string* error) {
  OnnxBuilder b(13, 8);
  b.GraphName("two_inputs").Input("a", {1, 3}).Input("b", {1, 3}).Output("y", {1, 3});
  b.Init("scale", {1, 3}, {1.0f, 2.0f, 0.5f});
  AddNode(b, "Sub", {"a", "b"}, "d");
  AddNode(b, "Mul", {"d", "scale"}, "m");
  AddNode(b, "Relu", {"m"}, "y");
  return Write(b, path, error);
}

}  // namespace edgefold::testing
