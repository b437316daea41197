// Gated activations exported as two ops become one activation node:
//   Mul(x, Sigmoid(x))                          → SiLU(x)      = x·σ(x)   (EfficientNet's Swish)
//   Mul(x, HardSigmoid(x; α = 1/6, β = 1/2))    → HardSwish(x) = x·max(0, min(1, x/6 + 1/2))
// in either operand order, when the gate's output feeds only that Mul and is not a graph
// output. Runs before FuseActivations, which then folds the new node into the producing
// Conv/FC/Add epilogue, so the gate costs no pass over memory of its own.
#include <cmath>

#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// The op the gate Mul(x, gate(x)) becomes, or "" when `gate` is not one of ours.
std::string GatedOp(const ir::Node& gate) {
  if (gate.op == "Sigmoid") return "SiLU";
  if (gate.op != "HardSigmoid") return "";
  // x·HardSigmoid(x) is HardSwish only for HardSwish's own constants (ONNX defaults are 0.2/0.5).
  const double alpha = gate.Float("alpha", 0.2), beta = gate.Float("beta", 0.5);
  return std::fabs(alpha - 1.0 / 6.0) < 1e-6 && std::fabs(beta - 0.5) < 1e-6 ? "HardSwish" : "";
}

// Index of the gate node of `mul` (its operand `gate_slot` = gate(other operand)), or -1.
int FindGate(const ir::Graph& graph, const ir::Node& mul, size_t gate_slot) {
  const std::string& g = mul.inputs[gate_slot];
  const std::string& x = mul.inputs[1 - gate_slot];
  const int p = graph.ProducerOf(g);
  if (p < 0) return -1;
  const ir::Node& gate = graph.nodes[p];
  if (GatedOp(gate).empty() || gate.inputs.size() != 1 || gate.inputs[0] != x ||
      gate.outputs.size() != 1 || gate.act.kind != kernels::ActKind::kNone)
    return -1;
  if (graph.ConsumerCount(g) != 1 || graph.IsGraphOutput(g)) return -1;
  return p;
}

}  // namespace

int FuseGatedActivations(ir::Graph& graph) {
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& mul = graph.nodes[i];
    if (!IsPlainMul(mul)) continue;
    int gate = FindGate(graph, mul, 1);
    const size_t x_slot = gate >= 0 ? 0 : 1;
    if (gate < 0) gate = FindGate(graph, mul, 0);
    if (gate < 0) continue;
    ir::Node& m = graph.nodes[i];
    m.op = GatedOp(graph.nodes[gate]);
    m.inputs = {m.inputs[x_slot]};
    m.attrs.clear();
    // The gate precedes its consumer in topological order, so erasing it shifts the Mul to i − 1.
    graph.nodes.erase(graph.nodes.begin() + gate);
    --i;
    ++fused;
  }
  graph.PruneUnusedTensors();
  return fused;
}

}  // namespace edgefold::compiler::passes
