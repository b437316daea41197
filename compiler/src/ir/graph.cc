#include "ir/graph.h"

#include <algorithm>
#include <set>

namespace edgefold::compiler::ir {

int64_t Node::Int(const std::string& attr, int64_t dflt) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::kInt)
    throw CompileError(Msg("attribute '" + attr + "' must be an int"));
  return it->second.i;
}

double Node::Float(const std::string& attr, double dflt) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return dflt;
  if (it->second.kind == Attr::kInt) return static_cast<double>(it->second.i);
  if (it->second.kind != Attr::kFloat)
    throw CompileError(Msg("attribute '" + attr + "' must be a float"));
  return it->second.f;
}

std::string Node::Str(const std::string& attr, const std::string& dflt) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::kString)
    throw CompileError(Msg("attribute '" + attr + "' must be a string"));
  return it->second.s;
}

std::vector<int64_t> Node::Ints(const std::string& attr, const std::vector<int64_t>& dflt) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::kInts)
    throw CompileError(Msg("attribute '" + attr + "' must be a list of ints"));
  return it->second.ints;
}

Tensor& Graph::At(const std::string& name) {
  auto it = tensors.find(name);
  if (it == tensors.end())
    throw CompileError("model '" + model_name + "': unknown tensor '" + name + "'");
  return it->second;
}

const Tensor& Graph::At(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end())
    throw CompileError("model '" + model_name + "': unknown tensor '" + name + "'");
  return it->second;
}

bool Graph::IsConst(const std::string& name) const {
  auto it = tensors.find(name);
  return it != tensors.end() && it->second.is_const;
}

bool Graph::IsGraphOutput(const std::string& name) const {
  return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
}

int Graph::ConsumerCount(const std::string& name) const {
  int count = 0;
  for (const Node& n : nodes)
    for (const std::string& in : n.inputs) count += (in == name);
  return count;
}

int Graph::ProducerOf(const std::string& name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const std::string& out : nodes[i].outputs)
      if (out == name) return static_cast<int>(i);
  return -1;
}

std::string Graph::AddConst(const std::string& hint, std::vector<int64_t> shape,
                            std::vector<double> data) {
  std::string name = hint;
  for (int k = 1; tensors.count(name); ++k) name = hint + "_" + std::to_string(k);
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.shape_known = true;
  t.is_const = true;
  t.data = std::move(data);
  tensors[name] = std::move(t);
  return name;
}

void Graph::ReplaceUses(const std::string& from, const std::string& to) {
  for (Node& n : nodes)
    for (std::string& in : n.inputs)
      if (in == from) in = to;
  for (std::string& out : outputs)
    if (out == from) out = to;
}

void Graph::PruneUnusedTensors() {
  std::set<std::string> used(inputs.begin(), inputs.end());
  used.insert(outputs.begin(), outputs.end());
  for (const Node& n : nodes) {
    used.insert(n.inputs.begin(), n.inputs.end());
    used.insert(n.outputs.begin(), n.outputs.end());
  }
  for (auto it = tensors.begin(); it != tensors.end();) {
    if (used.count(it->first))
      ++it;
    else
      it = tensors.erase(it);
  }
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace edgefold::compiler::ir
