#include <set>

#include "passes/activation.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {

int FuseActivations(ir::Graph& graph) {
  static const std::set<std::string> kProducers = {"Conv", "FC", "ChannelAffine", "BatchNormalization",
                                                   "Add", "Sub", "Mul", "Div"};
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    const ir::Node& act = graph.nodes[i];
    if (!IsActivationOp(act.op) || act.inputs.empty()) {
      ++i;
      continue;
    }
    const std::string x = act.inputs[0];
    const int p = graph.ProducerOf(x);
    if (p < 0 || !kProducers.count(graph.nodes[p].op) || graph.nodes[p].outputs[0] != x ||
        graph.nodes[p].act.kind != kernels::ActKind::kNone || graph.ConsumerCount(x) != 1 ||
        graph.IsGraphOutput(x)) {
      ++i;
      continue;
    }
    graph.nodes[p].act = ParseActivation(graph, act);
    graph.nodes[p].outputs[0] = act.outputs[0];
    graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i));
    ++fused;
  }
  graph.PruneUnusedTensors();
  return fused;
}

}  // namespace edgefold::compiler::passes
