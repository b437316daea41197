#include "ir/import.h"

#include <cstring>

namespace edgefold::compiler::ir {
namespace {

template <class T>
std::vector<double> FromRaw(const std::string& raw, size_t count, const std::string& where) {
  if (raw.size() != count * sizeof(T))
    throw CompileError(where + ": raw_data has " + std::to_string(raw.size()) +
                       " bytes, expected " + std::to_string(count * sizeof(T)));
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(v);
  }
  return out;
}

template <class Field>
std::vector<double> FromField(const Field& field) {
  return std::vector<double>(field.begin(), field.end());
}

std::vector<double> ReadValues(const onnx::TensorProto& p, size_t count, const std::string& where) {
  const bool raw = p.has_raw_data();
  const std::string& r = p.raw_data();
  switch (p.data_type()) {
    case onnx::TensorProto::FLOAT:
      return raw ? FromRaw<float>(r, count, where) : FromField(p.float_data());
    case onnx::TensorProto::DOUBLE:
      return raw ? FromRaw<double>(r, count, where) : FromField(p.double_data());
    case onnx::TensorProto::INT64:
      return raw ? FromRaw<int64_t>(r, count, where) : FromField(p.int64_data());
    case onnx::TensorProto::INT32:
      return raw ? FromRaw<int32_t>(r, count, where) : FromField(p.int32_data());
    case onnx::TensorProto::INT16:
      return raw ? FromRaw<int16_t>(r, count, where) : FromField(p.int32_data());
    case onnx::TensorProto::INT8:
      return raw ? FromRaw<int8_t>(r, count, where) : FromField(p.int32_data());
    case onnx::TensorProto::UINT8:
      return raw ? FromRaw<uint8_t>(r, count, where) : FromField(p.int32_data());
    case onnx::TensorProto::BOOL:
      return raw ? FromRaw<uint8_t>(r, count, where) : FromField(p.int32_data());
    default:
      throw CompileError(where + ": unsupported tensor data type " + std::to_string(p.data_type()));
  }
}

Tensor FromValueInfo(const onnx::ValueInfoProto& vi) {
  Tensor t;
  t.name = vi.name();
  if (!vi.type().has_tensor_type()) return t;
  const auto& tt = vi.type().tensor_type();
  t.dtype = tt.elem_type();
  if (!tt.has_shape()) return t;
  t.shape_known = true;
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) {
      t.shape_known = false;
      t.shape.clear();
      return t;
    }
    t.shape.push_back(d.dim_value());
  }
  return t;
}

Attr AttrFromProto(const onnx::AttributeProto& a, const std::string& where) {
  Attr out;
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      out.kind = Attr::kInt;
      out.i = a.i();
      break;
    case onnx::AttributeProto::FLOAT:
      out.kind = Attr::kFloat;
      out.f = a.f();
      break;
    case onnx::AttributeProto::STRING:
      out.kind = Attr::kString;
      out.s = a.s();
      break;
    case onnx::AttributeProto::INTS:
      out.kind = Attr::kInts;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      out.kind = Attr::kFloats;
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::STRINGS:
      out.kind = Attr::kStrings;
      out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case onnx::AttributeProto::TENSOR:
      out.kind = Attr::kTensor;
      out.t = TensorFromProto(a.t(), where + " attribute '" + a.name() + "'");
      break;
    default:
      throw CompileError(where + ": attribute '" + a.name() + "' has an unsupported type");
  }
  return out;
}

void ImportNodes(const onnx::GraphProto& g, Graph* graph) {
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& p = g.node(i);
    Node n;
    n.op = p.op_type();
    n.name = p.name().empty() ? p.op_type() + "_" + std::to_string(i) : p.name();
    if (!p.domain().empty() && p.domain() != "ai.onnx")
      throw CompileError(n.Msg("unsupported op (domain '" + p.domain() + "')"));
    n.inputs.assign(p.input().begin(), p.input().end());
    n.outputs.assign(p.output().begin(), p.output().end());
    const std::string where = "node '" + n.name + "' (op '" + n.op + "')";
    for (const auto& a : p.attribute()) n.attrs[a.name()] = AttrFromProto(a, where);
    for (const std::string& name : n.inputs)
      if (!name.empty() && !graph->tensors.count(name))
        throw CompileError(n.Msg("input '" + name + "' is not produced by any node"));
    for (const std::string& name : n.outputs)
      if (!name.empty() && !graph->tensors.count(name)) graph->tensors[name].name = name;
    graph->nodes.push_back(std::move(n));
  }
}

}  // namespace

Tensor TensorFromProto(const onnx::TensorProto& proto, const std::string& where) {
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    throw CompileError(where + ": tensor '" + proto.name() + "' uses external data (unsupported)");
  Tensor t;
  t.name = proto.name();
  t.dtype = proto.data_type();
  t.shape.assign(proto.dims().begin(), proto.dims().end());
  t.shape_known = true;
  t.is_const = true;
  t.data = ReadValues(proto, static_cast<size_t>(NumElements(t.shape)),
                      where + " tensor '" + proto.name() + "'");
  if (t.data.size() != static_cast<size_t>(NumElements(t.shape)))
    throw CompileError(where + ": tensor '" + proto.name() + "' has " +
                       std::to_string(t.data.size()) + " values for shape " + ShapeString(t.shape));
  return t;
}

Graph ImportGraph(const onnx::ModelProto& model, const std::string& model_name) {
  Graph graph;
  graph.model_name = model_name;
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") graph.opset = op.version();
  const auto& g = model.graph();
  const std::string where = "model '" + model_name + "'";
  for (const auto& init : g.initializer())
    graph.tensors[init.name()] = TensorFromProto(init, where);
  for (const auto& in : g.input()) {
    if (graph.tensors.count(in.name())) continue;  // an initializer: constant
    graph.tensors[in.name()] = FromValueInfo(in);
    graph.inputs.push_back(in.name());
  }
  for (const auto& vi : g.value_info()) graph.tensors[vi.name()] = FromValueInfo(vi);
  for (const auto& out : g.output())
    if (!graph.tensors.count(out.name())) graph.tensors[out.name()] = FromValueInfo(out);
  ImportNodes(g, &graph);
  for (const auto& out : g.output()) graph.outputs.push_back(out.name());
  return graph;
}

}  // namespace edgefold::compiler::ir
