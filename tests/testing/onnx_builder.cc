#include "testing/onnx_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <onnx/shape_inference/implementation.h>

#include "testing/efb_builder.h"
#include "testing/run_model.h"

namespace edgefold::testing {

OnnxBuilder::OnnxBuilder(int opset, int64_t ir_version) {
  model_.set_ir_version(ir_version);
  model_.set_producer_name("edgefold-tests");
  model_.add_opset_import()->set_version(opset);
  model_.mutable_graph()->set_name("test_graph");
}

OnnxBuilder& OnnxBuilder::Input(const std::string& name, const std::vector<int64_t>& dims) {
  auto* in = model_.mutable_graph()->add_input();
  in->set_name(name);
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tt->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0)
      shape->add_dim()->set_dim_param(i == 0 ? "N" : "D" + std::to_string(i));
    else
      shape->add_dim()->set_dim_value(dims[i]);
  }
  return *this;
}

OnnxBuilder& OnnxBuilder::GraphName(const std::string& name) {
  model_.mutable_graph()->set_name(name);
  return *this;
}

OnnxBuilder& OnnxBuilder::Output(const std::string& name) {
  outputs_.push_back(name);
  return *this;
}

OnnxBuilder& OnnxBuilder::Output(const std::string& name, const std::vector<int64_t>& dims) {
  output_dims_[name] = dims;
  return Output(name);
}

onnx::ModelProto OnnxBuilder::model() const {
  onnx::ModelProto inferred = model_;
  try {
    onnx::ShapeInferenceOptions options(false, 0, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {}
  onnx::ModelProto m = model_;
  for (const std::string& name : outputs_) {
    auto* out = m.mutable_graph()->add_output();
    out->set_name(name);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = out->mutable_type()->mutable_tensor_type()->mutable_shape();
    const auto dims = output_dims_.find(name);
    if (dims != output_dims_.end()) {
      for (int64_t d : dims->second) shape->add_dim()->set_dim_value(d);
      continue;
    }
    for (const auto& vi : inferred.graph().value_info())
      if (vi.name() == name) out->mutable_type()->CopyFrom(vi.type());
  }
  return m;
}

namespace {
onnx::TensorProto* AddInitializer(onnx::ModelProto& m, const std::string& name,
                                  const std::vector<int64_t>& dims,
                                  onnx::TensorProto::DataType type) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  return t;
}
}  // namespace

OnnxBuilder& OnnxBuilder::Init(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<float>& values) {
  auto* t = AddInitializer(model_, name, dims, onnx::TensorProto::FLOAT);
  for (float v : values) t->add_float_data(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::InitInt64(const std::string& name, const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& values) {
  auto* t = AddInitializer(model_, name, dims, onnx::TensorProto::INT64);
  for (int64_t v : values) t->add_int64_data(v);
  return *this;
}

onnx::NodeProto& OnnxBuilder::Node(const std::string& op, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs,
                                   const std::string& name) {
  auto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return *n;
}

void SetInt(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void SetFloat(onnx::NodeProto& n, const std::string& name, float v) {
  for (auto& existing : *n.mutable_attribute()) {
    if (existing.name() == name) {
      existing.set_f(v);
      return;
    }
  }
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void SetInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void SetString(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
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

bool SaveModel(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  return f && m.SerializeToOstream(&f) && f.flush();
}

compiler::CompileOptions NoVerify() {
  compiler::CompileOptions o;
  o.verify = false;
  return o;
}

void AddBatchNorm(OnnxBuilder& b, const std::string& name, const std::string& x,
                  const std::string& y, int64_t channels, uint32_t seed) {
  const size_t c = static_cast<size_t>(channels);
  b.Init(name + ".weight", {channels}, RandomVector(c, seed, 0.5f, 1.5f));
  b.Init(name + ".bias", {channels}, RandomVector(c, seed + 1, -0.5f, 0.5f));
  b.Init(name + ".running_mean", {channels}, RandomVector(c, seed + 2, -0.5f, 0.5f));
  b.Init(name + ".running_var", {channels}, RandomVector(c, seed + 3, 0.2f, 2.0f));
  auto& n =
      b.Node("BatchNormalization",
             {x, name + ".weight", name + ".bias", name + ".running_mean", name + ".running_var"},
             {y}, name);
  SetFloat(n, "epsilon", 1e-5f);
}

const fb::Model* ModelOf(const std::vector<uint8_t>& efb) { return fb::GetModel(efb.data()); }

std::vector<const fb::Operator*> OpsOfType(const fb::Model* m, fb::OpType type) {
  std::vector<const fb::Operator*> out;
  for (const fb::Operator* op : *m->operators())
    if (op->type() == type) out.push_back(op);
  return out;
}

size_t CountOps(const std::vector<uint8_t>& efb, fb::OpType type) {
  return OpsOfType(ModelOf(efb), type).size();
}

double MaxRelError(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst =
        std::max(worst, std::fabs(double(a[i]) - b[i]) / std::max(1.0, std::fabs(double(b[i]))));
  return worst;
}

std::vector<float> ConstData(const fb::Model* m, int tensor) {
  const fb::Tensor* t = m->tensors()->Get(tensor);
  if (t->weight_offset() < 0) throw std::runtime_error("not a constant");
  std::vector<float> v(t->bytes() / sizeof(float));
  std::memcpy(v.data(), m->weights()->data() + t->weight_offset(), t->bytes());
  return v;
}

std::vector<std::vector<float>> RunEfb(const std::vector<uint8_t>& efb,
                                       const std::vector<std::vector<float>>& inputs) {
  const RunResult r = RunModel(efb, inputs);
  std::istringstream log(r.log);
  for (std::string message; std::getline(log, message);)
    std::fprintf(stderr, "runtime: %s\n", message.c_str());
  if (r.status != Status::kOk)
    throw std::runtime_error(std::string("runtime: ") + StatusName(r.status));
  return r.outputs;
}

BnParams ReadBn(const OnnxBuilder& b, const std::string& name) {
  BnParams p;
  const onnx::ModelProto m = b.model();
  for (const auto& t : m.graph().initializer()) {
    std::vector<float> v(t.float_data().begin(), t.float_data().end());
    if (t.name() == name + ".weight") p.gamma = v;
    if (t.name() == name + ".bias") p.beta = v;
    if (t.name() == name + ".running_mean") p.mean = v;
    if (t.name() == name + ".running_var") p.var = v;
  }
  return p;
}

}  // namespace edgefold::testing
