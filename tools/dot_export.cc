#include "dot_export.h"

#include <vector>

#include "efb_describe.h"
#include "plot_text.h"

namespace edgefold::tools {
namespace {

// DOT double-quoted string body: escape quotes and backslashes; "\n" is a centred line break.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
  }
  return out + "\"";
}

const fb::Tensor* TensorAt(const fb::Model& m, int index) {
  if (!m.tensors() || index < 0 || index >= int(m.tensors()->size())) return nullptr;
  return m.tensors()->Get(index);
}

std::string OpLabel(const fb::Model& m, int i, const fb::Operator& op) {
  std::string label = "#" + std::to_string(i) + " " + DescribeOpType(op);
  if (op.name() && op.name()->size()) label += "\n" + op.name()->str();
  for (flatbuffers::uoffset_t j = 0; op.outputs() && j < op.outputs()->size(); ++j) {
    const fb::Tensor* t = TensorAt(m, op.outputs()->Get(j));
    label += "\nout " + DescribeTensorRef(m, op.outputs()->Get(j)) +
             (t ? " " + FormatBytes(t->bytes()) : "");
  }
  uint64_t const_bytes = 0;
  for (flatbuffers::uoffset_t j = 0; op.inputs() && j < op.inputs()->size(); ++j) {
    const int index = op.inputs()->Get(j);
    const fb::Tensor* t = TensorAt(m, index);
    if (t && t->weight_offset() >= 0) const_bytes += t->bytes();
    if (!t && index != -1) label += "\nin " + DescribeTensorRef(m, index);  // shown, not dropped
  }
  if (const_bytes) label += "\nweights " + FormatBytes(const_bytes);
  if (op.scratch_bytes()) label += "\nscratch " + FormatBytes(op.scratch_bytes());
  return label;
}

std::string EdgeLabel(const fb::Model& m, int t) { return DescribeTensorRef(m, t); }

// producer[t]: "op3" / "in0" node that makes tensor t, or "" (constants, unknown).
std::vector<std::string> Producers(const fb::Model& m) {
  std::vector<std::string> producer(m.tensors() ? m.tensors()->size() : 0);
  auto set = [&](int t, const std::string& node) {
    if (t >= 0 && t < int(producer.size()) && producer[t].empty()) producer[t] = node;
  };
  for (flatbuffers::uoffset_t i = 0; m.inputs() && i < m.inputs()->size(); ++i)
    set(m.inputs()->Get(i), "in" + std::to_string(i));
  for (flatbuffers::uoffset_t i = 0; m.operators() && i < m.operators()->size(); ++i) {
    const fb::Operator* op = m.operators()->Get(i);
    for (flatbuffers::uoffset_t j = 0; op->outputs() && j < op->outputs()->size(); ++j)
      set(op->outputs()->Get(j), "op" + std::to_string(i));
  }
  return producer;
}

}  // namespace

std::string ModelToDot(const fb::Model& m, const std::string& title) {
  std::string s = "digraph edgefold {\n  label=" + Quote(title) +
                  "; labelloc=t;\n"
                  "  node [fontname=\"Helvetica\", fontsize=10];\n"
                  "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  const std::vector<std::string> producer = Producers(m);
  for (flatbuffers::uoffset_t i = 0; m.inputs() && i < m.inputs()->size(); ++i) {
    const int t = m.inputs()->Get(i);
    s += "  in" + std::to_string(i) +
         " [shape=ellipse, style=filled, fillcolor=\"#d9ead3\", label=" +
         Quote("input\n" + EdgeLabel(m, t)) + "];\n";
  }
  const int num_ops = m.operators() ? int(m.operators()->size()) : 0;
  for (int i = 0; i < num_ops; ++i) {
    const fb::Operator& op = *m.operators()->Get(i);
    s += "  op" + std::to_string(i) +
         " [shape=box, style=\"rounded,filled\", fillcolor=\"#dde7f3\", label=" +
         Quote(OpLabel(m, i, op)) + "];\n";
    for (flatbuffers::uoffset_t j = 0; op.inputs() && j < op.inputs()->size(); ++j) {
      const int t = op.inputs()->Get(j);
      if (t < 0 || t >= int(producer.size()) || producer[t].empty()) continue;  // constant
      s += "  " + producer[t] + " -> op" + std::to_string(i) + " [label=" + Quote(EdgeLabel(m, t)) +
           "];\n";
    }
  }
  for (flatbuffers::uoffset_t i = 0; m.outputs() && i < m.outputs()->size(); ++i) {
    const int t = m.outputs()->Get(i);
    const std::string node = "out" + std::to_string(i);
    s += "  " + node + " [shape=ellipse, style=filled, fillcolor=\"#fce5cd\", label=" +
         Quote("output\n" + EdgeLabel(m, t)) + "];\n";
    if (t >= 0 && t < int(producer.size()) && !producer[t].empty())
      s += "  " + producer[t] + " -> " + node + ";\n";
  }
  return s + "}\n";
}

}  // namespace edgefold::tools
