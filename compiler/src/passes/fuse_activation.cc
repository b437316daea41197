#include <set>

#include "passes/activation.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {

namespace {

int FuseInto(ir::Graph& graph, const std::set<std::string>& producers, bool clamps_only = false) {
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    const ir::Node& act = graph.nodes[i];
    if (!IsActivationOp(act.op) || act.inputs.empty()) {
      ++i;
      continue;
    }
    const std::string x = act.inputs[0];
    const int p = graph.ProducerOf(x);
    const kernels::ActKind kind = ParseActivation(graph, act).kind;
    const bool clamp = kind == kernels::ActKind::kRelu || kind == kernels::ActKind::kClip;
    if (p < 0 || !producers.count(graph.nodes[p].op) || !FusableIntoProducer(kind) || (clamps_only && !clamp) ||
        graph.nodes[p].outputs[0] != x ||
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

}  // namespace

int FuseActivations(ir::Graph& graph, bool clamps_only) {
  return FuseInto(graph, {"Conv", "ConvTranspose", "FC", "ChannelAffine", "BatchNormalization", "Add", "Sub", "Mul", "Div"},
                  clamps_only);
}

int FuseActivationsIntoBatchNorm(ir::Graph& graph) { return FuseInto(graph, {"BatchNormalization"}); }

}  // namespace edgefold::compiler::passes
