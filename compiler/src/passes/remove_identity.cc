#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// Drops node i, which copies its first input to its first output, renaming the output's uses.
void Bypass(ir::Graph& graph, size_t i) {
  const std::string in = graph.nodes[i].inputs[0], out = graph.nodes[i].outputs[0];
  graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i));
  graph.ReplaceUses(out, in);
}

}  // namespace

int RemoveIdentity(ir::Graph& graph) {
  int removed = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    ir::Node& n = graph.nodes[i];
    if (n.op != "Identity" && n.op != "Dropout") {
      ++i;
      continue;
    }
    if (n.inputs.empty() || n.outputs.empty())
      throw CompileError(n.Msg("needs one input and one output"));
    if (n.outputs.size() > 1 && !n.outputs[1].empty() && graph.ConsumerCount(n.outputs[1]) > 0)
      throw CompileError(n.Msg("the Dropout mask output is used (unsupported)"));
    Bypass(graph, i);
    ++removed;
  }
  graph.PruneUnusedTensors();
  return removed;
}

namespace {

// A Pad whose pads are all zero, or a Reshape/Flatten to the shape it already has, copies its
// input unchanged (PyTorch exports AvgPool2d(padding=0) after a conv as Pad + AveragePool).
bool IsShapePreservingCopy(const ir::Graph& graph, const ir::Node& n) {
  if (n.op != "Reshape" && n.op != "Flatten" && n.op != "Pad") return false;
  if (n.inputs.empty() || n.outputs.empty() || n.inputs[0].empty() || n.outputs[0].empty())
    return false;
  const ir::Tensor& in = graph.At(n.inputs[0]);
  const ir::Tensor& out = graph.At(n.outputs[0]);
  if (in.is_const || !in.shape_known || !out.shape_known || in.shape != out.shape ||
      in.dtype != out.dtype)
    return false;
  if (n.op == "Reshape" || n.op == "Flatten") return true;
  if (n.op != "Pad") return false;
  std::vector<double> pads;
  if (n.Has("pads")) {
    for (int64_t p : n.Ints("pads", {})) pads.push_back(static_cast<double>(p));
  } else if (!n.In(1).empty() && graph.IsConst(n.In(1))) {
    pads = graph.At(n.In(1)).data;
  } else {
    return false;
  }
  for (double p : pads)
    if (p != 0) return false;
  return true;
}

}  // namespace

int RemoveNoOpCopies(ir::Graph& graph) {
  int removed = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    const ir::Node& n = graph.nodes[i];
    if (!IsShapePreservingCopy(graph, n) || graph.IsGraphOutput(n.outputs[0])) {
      ++i;
      continue;
    }
    Bypass(graph, i);
    ++removed;
  }
  graph.PruneUnusedTensors();
  return removed;
}

}  // namespace edgefold::compiler::passes
