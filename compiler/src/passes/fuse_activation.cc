#include <set>

#include "passes/activation.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {

namespace {

// Moves activation node i into the op producing its input (its only reader) when `producers`
// lists that op and it has no activation yet.
bool FuseIntoProducer(ir::Graph& graph, size_t i, const std::set<std::string>& producers,
                      bool clamps_only, const std::set<std::string>& keep) {
  const ir::Node& act = graph.nodes[i];
  if (!IsActivationOp(act.op) || act.inputs.empty()) return false;
  const std::string x = act.inputs[0];
  const int p = graph.ProducerOf(x);
  const kernels::ActKind kind = ParseActivation(graph, act).kind;
  const bool clamp = kind == kernels::ActKind::kRelu || kind == kernels::ActKind::kClip;
  if (p < 0 || !producers.count(graph.nodes[p].op) || !FusableIntoProducer(kind) ||
      (clamps_only && !clamp) || graph.nodes[p].outputs[0] != x ||
      graph.nodes[p].act.kind != kernels::ActKind::kNone || graph.ConsumerCount(x) != 1 ||
      graph.IsGraphOutput(x) || keep.count(x)) {
    return false;
  }
  graph.nodes[p].act = ParseActivation(graph, act);
  graph.nodes[p].outputs[0] = act.outputs[0];
  return true;
}

int FuseInto(ir::Graph& graph, const std::set<std::string>& producers, bool clamps_only = false,
             const std::set<std::string>& keep = {}) {
  return EraseFusedNodes(
      graph, [&](size_t i) { return FuseIntoProducer(graph, i, producers, clamps_only, keep); });
}

}  // namespace

int FuseActivations(ir::Graph& graph, bool clamps_only, const std::set<std::string>& keep) {
  return FuseInto(graph,
                  {"Conv", "ConvTranspose", "FC", "ChannelAffine", "BatchNormalization", "Add",
                   "Sub", "Mul", "Div"},
                  clamps_only, keep);
}

int FuseActivationsIntoBatchNorm(ir::Graph& graph) {
  return FuseInto(graph, {"BatchNormalization"});
}

}  // namespace edgefold::compiler::passes
