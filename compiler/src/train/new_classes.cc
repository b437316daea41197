#include "train/new_classes.h"

#include <onnx/onnx_pb.h>

#include <cstring>

namespace edgefold::compiler {
namespace {

onnx::TensorProto* Initializer(onnx::ModelProto* m, const std::string& name) {
  for (auto& t : *m->mutable_graph()->mutable_initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

std::vector<float> Values(const onnx::TensorProto& t) {
  if (!t.raw_data().empty()) {
    std::vector<float> v(t.raw_data().size() / sizeof(float));
    std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
    return v;
  }
  return std::vector<float>(t.float_data().begin(), t.float_data().end());
}

void SetValues(onnx::TensorProto* t, const std::vector<float>& v) {
  t->clear_float_data();
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

// Inserts `k` zero slices along `axis` (at its end) of a float initializer.
bool Widen(onnx::TensorProto* t, int axis, int k) {
  if (t == nullptr || t->data_type() != onnx::TensorProto::FLOAT || axis >= t->dims_size())
    return false;
  const std::vector<float> v = Values(*t);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= t->dims(d);
  for (int d = axis + 1; d < t->dims_size(); ++d) inner *= t->dims(d);
  const int64_t n = t->dims(axis);
  if (static_cast<int64_t>(v.size()) != outer * n * inner) return false;
  std::vector<float> w(static_cast<size_t>(outer * (n + k) * inner), 0.0f);
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(&w[static_cast<size_t>(o * (n + k) * inner)],
                &v[static_cast<size_t>(o * n * inner)],
                static_cast<size_t>(n * inner) * sizeof(float));
  t->set_dims(axis, n + k);
  SetValues(t, w);
  return true;
}

int64_t IntAttr(const onnx::NodeProto& n, const char* name, int64_t dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return dflt;
}

}  // namespace

bool AppendClasses(onnx::ModelProto* model, int k, std::string* head, std::string* error) {
  auto* g = model->mutable_graph();
  if (k < 1 || g->output_size() != 1) {
    *error = "--new-classes needs K >= 1 and a model with one output";
    return false;
  }
  const std::string output = g->output(0).name();
  // The classifier: the last Gemm or MatMul; what follows it may only be its bias Add and a
  // Softmax/Identity (or a ReLU) on the way to the output.
  int node = -1;
  for (int i = g->node_size() - 1; i >= 0 && node < 0; --i) {
    const std::string& op = g->node(i).op_type();
    if (op == "Gemm" || op == "MatMul")
      node = i;
    else if (op != "Add" && op != "Softmax" && op != "Identity" && op != "LogSoftmax" &&
             op != "Relu")
      break;
  }
  if (node < 0) {
    *error = "--new-classes: no Gemm or MatMul classifier right before output '" + output + "'";
    return false;
  }
  const onnx::NodeProto& n = g->node(node);
  *head = n.name().empty() ? n.output(0) : n.name();
  const auto fail = [&](const std::string& why) {
    *error = "--new-classes: node '" + *head + "' (" + n.op_type() + "): " + why;
    return false;
  };
  if (n.op_type() == "Gemm") {
    if (IntAttr(n, "transA", 0) != 0) return fail("transA is not supported");
    const int axis = IntAttr(n, "transB", 0) != 0 ? 0 : 1;  // W [N, K] or [K, N]
    if (!Widen(Initializer(model, n.input(1)), axis, k))
      return fail("its weight is not a float initializer");
    if (n.input_size() > 2 && !n.input(2).empty()) {
      onnx::TensorProto* bias = Initializer(model, n.input(2));
      if (bias == nullptr || bias->dims_size() != 1 || !Widen(bias, 0, k))
        return fail("its bias is not a float vector initializer");
    }
  } else {
    onnx::TensorProto* w = Initializer(model, n.input(1));
    if (w == nullptr || w->dims_size() != 2 || !Widen(w, 1, k))
      return fail("its weight is not a 2-D float initializer");
    for (int i = node + 1; i < g->node_size(); ++i) {  // the bias Add that follows, if any
      const onnx::NodeProto& add = g->node(i);
      if (add.op_type() != "Add") continue;
      for (const std::string& in : add.input()) {
        onnx::TensorProto* bias = Initializer(model, in);
        if (bias != nullptr && !Widen(bias, bias->dims_size() - 1, k))
          return fail("its bias Add cannot be widened");
      }
    }
  }
  // The output's class dim is inferred anew.
  auto* shape = g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  if (shape->dim_size() > 0) shape->mutable_dim(shape->dim_size() - 1)->set_dim_param("classes");
  g->clear_value_info();
  return true;
}

}  // namespace edgefold::compiler
