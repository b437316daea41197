// Small graph queries and the erase loop shared by the pattern-matching passes.
#pragma once
#include <cmath>
#include <string>

#include "ir/graph.h"

namespace edgefold::compiler::passes {

// A one-value constant equal to `value` (relative 1e-6).
inline bool IsScalarConst(const ir::Graph& g, const std::string& name, double value) {
  if (name.empty() || !g.IsConst(name)) return false;
  const ir::Tensor& t = g.At(name);
  return t.data.size() == 1 && std::fabs(t.data[0] - value) <= 1e-6 * std::fabs(value);
}

// A Conv whose attributes say group 1, stride 1, dilation 1 and no padding: pointwise once its
// kernel is 1×1 (the form the channel-scale and expansion fusions rewrite).
inline bool HasUnitWindow(const ir::Node& c) {
  for (int64_t v : c.Ints("strides", {1, 1}))
    if (v != 1) return false;
  for (int64_t v : c.Ints("dilations", {1, 1}))
    if (v != 1) return false;
  for (int64_t v : c.Ints("pads", {0, 0, 0, 0}))
    if (v != 0) return false;
  return c.Int("group", 1) == 1 && c.Str("auto_pad", "NOTSET") == "NOTSET";
}

// Offers every node, in order, to `fuse_into_consumer(i)`; a node it returns true for has been
// merged into the node reading its output and is erased. Returns how many were, after pruning
// the tensors nothing reads any more.
template <class FuseFn>
int EraseFusedNodes(ir::Graph& graph, FuseFn fuse_into_consumer) {
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    if (fuse_into_consumer(i)) {
      graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i));
      ++fused;
    } else {
      ++i;
    }
  }
  graph.PruneUnusedTensors();
  return fused;
}

// Index of the only node reading `t` (which is no graph output), or -1.
inline int SoleConsumer(const ir::Graph& g, const std::string& t) {
  if (g.ConsumerCount(t) != 1 || g.IsGraphOutput(t)) return -1;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& in : g.nodes[i].inputs)
      if (in == t) return static_cast<int>(i);
  return -1;
}

// A two-input node `op` with no fused activation whose operands are {`known`, other}: returns
// the other operand's name, or "" when `n` does not fit.
inline std::string OtherOperand(const ir::Node& n, const char* op, const std::string& known) {
  if (n.op != op || n.inputs.size() != 2 || n.outputs.size() != 1 ||
      n.act.kind != kernels::ActKind::kNone)
    return "";
  if (n.inputs[0] == known) return n.inputs[1];
  if (n.inputs[1] == known) return n.inputs[0];
  return "";
}

}  // namespace edgefold::compiler::passes
