#include "bad_onnx_models.h"

#include <cmath>
#include <fstream>
#include <vector>

namespace edgefold::hardening {
namespace {

void AddInitializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  size_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= static_cast<size_t>(d);
  }
  for (size_t i = 0; i < n; ++i) t->add_float_data(0.5f + 0.25f * std::sin(0.7f * static_cast<float>(i)));
}

void AddValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
              const std::string& name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& name, const std::string& op,
                         std::vector<std::string> inputs, const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
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

}  // namespace

onnx::ModelProto ConvBnModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("edgefold tests/hardening");
  onnx::OperatorSetIdProto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("conv_bn");
  AddValue(g->mutable_input(), "x", {1, 2, 5, 5});
  AddValue(g->mutable_output(), "y", {1, 4});
  AddInitializer(g, "conv.w", {3, 2, 3, 3});
  AddInitializer(g, "conv.b", {3});
  for (const char* p : {"bn.gamma", "bn.beta", "bn.mean", "bn.var"}) AddInitializer(g, p, {3});
  AddInitializer(g, "fc.w", {4, 3});
  AddInitializer(g, "fc.b", {4});
  onnx::NodeProto* conv = AddNode(g, "conv", "Conv", {"x", "conv.w", "conv.b"}, "c");
  AddInts(conv, "kernel_shape", {3, 3});
  AddInts(conv, "pads", {1, 1, 1, 1});
  AddNode(g, "bn", "BatchNormalization", {"c", "bn.gamma", "bn.beta", "bn.mean", "bn.var"}, "b");
  AddNode(g, "relu", "Relu", {"b"}, "r");
  AddNode(g, "gap", "GlobalAveragePool", {"r"}, "p");
  AddNode(g, "flatten", "Flatten", {"p"}, "f");
  onnx::NodeProto* fc = AddNode(g, "fc", "Gemm", {"f", "fc.w", "fc.b"}, "y");
  onnx::AttributeProto* a = fc->add_attribute();
  a->set_name("transB");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  return m;
}

onnx::TensorProto* FindInitializer(onnx::ModelProto& m, const std::string& name) {
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

onnx::NodeProto* FindNode(onnx::ModelProto& m, const std::string& name) {
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.name() == name) return &n;
  return nullptr;
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, float value) {
  for (auto& a : *node->mutable_attribute()) {
    if (a.name() == name) {
      a.set_f(value);
      return;
    }
  }
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

bool SaveModel(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  return f && m.SerializeToOstream(&f) && f.flush();
}

}  // namespace edgefold::hardening
