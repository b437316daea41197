#include "passes/passes.h"

namespace edgefold::compiler::passes {

int RemoveIdentity(ir::Graph& graph) {
  int removed = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    ir::Node& n = graph.nodes[i];
    if (n.op != "Identity" && n.op != "Dropout") {
      ++i;
      continue;
    }
    if (n.inputs.empty() || n.outputs.empty()) throw CompileError(n.Msg("needs one input and one output"));
    if (n.outputs.size() > 1 && !n.outputs[1].empty() && graph.ConsumerCount(n.outputs[1]) > 0)
      throw CompileError(n.Msg("the Dropout mask output is used (unsupported)"));
    const std::string in = n.inputs[0], out = n.outputs[0];
    graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i));
    graph.ReplaceUses(out, in);
    ++removed;
  }
  graph.PruneUnusedTensors();
  return removed;
}

}  // namespace edgefold::compiler::passes
