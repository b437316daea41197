#include "ir/reinfer.h"

#include <set>

#include <onnx/shape_inference/implementation.h>

namespace edgefold::compiler::ir {
namespace {

onnx::TensorProto ToProto(const Tensor& t) {
  onnx::TensorProto p;
  p.set_name(t.name);
  for (int64_t d : t.shape) p.add_dims(d);
  switch (t.dtype) {
    case kFloat:
      p.set_data_type(onnx::TensorProto::FLOAT);
      for (double v : t.data) p.add_float_data(static_cast<float>(v));
      break;
    case kDouble:
      p.set_data_type(onnx::TensorProto::DOUBLE);
      for (double v : t.data) p.add_double_data(v);
      break;
    case kInt64:
      p.set_data_type(onnx::TensorProto::INT64);
      for (double v : t.data) p.add_int64_data(static_cast<int64_t>(v));
      break;
    default:  // int32, int8, uint8, bool share int32_data
      p.set_data_type(t.dtype);
      for (double v : t.data) p.add_int32_data(static_cast<int32_t>(v));
      break;
  }
  return p;
}

}  // namespace

bool HasUnknownShapes(const Graph& graph) {
  for (const Node& n : graph.nodes)
    for (const std::string& out : n.outputs)
      if (!out.empty() && graph.tensors.count(out) && !graph.At(out).shape_known) return true;
  return false;
}

onnx::ModelProto ReinferWithConstants(const onnx::ModelProto& model, const Graph& graph) {
  onnx::ModelProto m = model;
  onnx::GraphProto* g = m.mutable_graph();
  std::set<std::string> initializers;
  for (const auto& t : g->initializer()) initializers.insert(t.name());
  auto folded = [&](const onnx::NodeProto& n) {
    for (const std::string& out : n.output())
      if (!out.empty() && !graph.IsConst(out)) return false;
    return n.output_size() > 0;
  };
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (const auto& n : g->node()) {
    if (folded(n)) continue;
    for (const std::string& in : n.input()) {
      if (in.empty() || initializers.count(in) || !graph.IsConst(in)) continue;
      *g->add_initializer() = ToProto(graph.At(in));
      initializers.insert(in);
    }
    *kept.Add() = n;
  }
  g->mutable_node()->Swap(&kept);
  g->clear_value_info();
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    throw CompileError("model '" + graph.model_name +
                       "': shape inference after constant folding: " + e.what());
  }
  return m;
}

}  // namespace edgefold::compiler::ir
