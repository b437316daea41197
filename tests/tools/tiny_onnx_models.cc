#include "tiny_onnx_models.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace edgefold::tools::testing {
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

void AddInitializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
                    const std::vector<float>& data) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : data) t->add_float_data(v);
}

void AddValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
              const std::string& name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op,
                         std::vector<std::string> inputs, const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + output);
  for (const std::string& in : inputs) n->add_input(in);
  n->add_output(output);
  return n;
}

void AddInts(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> values) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

void AddInt(onnx::NodeProto* n, const std::string& name, int64_t value) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

bool Save(onnx::ModelProto& m, const std::string& path, std::string* error) {
  m.set_ir_version(8);
  m.set_producer_name("edgefold tests/tools");
  onnx::OperatorSetIdProto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  std::ofstream f(path, std::ios::binary);
  if (!f || !m.SerializeToOstream(&f)) { *error = "cannot write " + path; return false; }
  return true;
}

}  // namespace

bool WriteConvBnModel(const std::string& path, std::string* error) {
  const ConvBnWeights w;
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("conv_bn");
  AddValue(g->mutable_input(), "x", {1, 2, 5, 5});
  AddValue(g->mutable_output(), "y", {1, 4});
  AddInitializer(g, "W", {3, 2, 3, 3}, w.conv_w);
  AddInitializer(g, "B", {3}, w.conv_b);
  AddInitializer(g, "gamma", {3}, w.gamma);
  AddInitializer(g, "beta", {3}, w.beta);
  AddInitializer(g, "mean", {3}, w.mean);
  AddInitializer(g, "var", {3}, w.var);
  AddInitializer(g, "Wg", {4, 3}, w.gemm_w);
  AddInitializer(g, "Bg", {4}, w.gemm_b);
  onnx::NodeProto* conv = AddNode(g, "Conv", {"x", "W", "B"}, "c");
  AddInts(conv, "kernel_shape", {3, 3});
  AddInts(conv, "pads", {1, 1, 1, 1});
  AddNode(g, "BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, "bn");
  AddNode(g, "Relu", {"bn"}, "r");
  AddNode(g, "GlobalAveragePool", {"r"}, "p");
  AddNode(g, "Flatten", {"p"}, "f");
  AddInt(AddNode(g, "Gemm", {"f", "Wg", "Bg"}, "y"), "transB", 1);
  return Save(m, path, error);
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
              acc += double(w.conv_w[((co * 2 + ci) * 3 + ky) * 3 + kx]) * x[(ci * 5 + iy) * 5 + ix];
            }
          }
        }
        // BN: (c − μ)·γ/√(σ²+ε) + β, then Relu, then the mean over 5×5.
        const double bn = (acc - w.mean[co]) * w.gamma[co] / std::sqrt(w.var[co] + w.eps) + w.beta[co];
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
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("two_inputs");
  AddValue(g->mutable_input(), "a", {1, 3});
  AddValue(g->mutable_input(), "b", {1, 3});
  AddValue(g->mutable_output(), "y", {1, 3});
  AddInitializer(g, "scale", {1, 3}, {1.0f, 2.0f, 0.5f});
  AddNode(g, "Sub", {"a", "b"}, "d");
  AddNode(g, "Mul", {"d", "scale"}, "m");
  AddNode(g, "Relu", {"m"}, "y");
  return Save(m, path, error);
}

}  // namespace edgefold::tools::testing
