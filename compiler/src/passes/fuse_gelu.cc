// GELU as PyTorch exports it (nn.GELU(), approximate='none') — five ops:
//   Div(x, √2) → Erf → Add(·, 1) → Mul(x, ·) → Mul(·, 0.5)        = x·½·(1 + erf(x/√2))
// becomes one internal "Gelu" node. Also matched: Mul(x, 1/√2) for the Div, the constant of the
// Add on either side, and the product taken as (x·½)·(1 + erf) or (x·(1 + erf))·½ in either
// operand order. Every intermediate must feed only the next op and not be a graph output.
// Runs before FuseActivations, so a Gelu right after a Conv joins its epilogue.
#include <algorithm>
#include <cmath>
#include <vector>

#include "passes/match_util.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// The single-consumer node making `t` if it is x·c (Mul) or x/c (Div) for the given constant
// (Div: c = divisor), setting *x; else -1.
int ScaledInput(const ir::Graph& g, const std::string& t, double mul_c, double div_c,
                std::string* x) {
  const int p = g.ProducerOf(t);
  if (p < 0 || g.ConsumerCount(t) != 1 || g.IsGraphOutput(t)) return -1;
  const ir::Node& n = g.nodes[p];
  if (n.inputs.size() != 2 || n.outputs.size() != 1 || n.act.kind != kernels::ActKind::kNone)
    return -1;
  if (n.op == "Div" && IsScalarConst(g, n.inputs[1], div_c) && !g.IsConst(n.inputs[0])) {
    *x = n.inputs[0];
    return p;
  }
  if (n.op != "Mul") return -1;
  for (int s = 0; s < 2; ++s)
    if (IsScalarConst(g, n.inputs[s], mul_c) && !g.IsConst(n.inputs[1 - s])) {
      *x = n.inputs[1 - s];
      return p;
    }
  return -1;
}

// The nodes of the Gelu around Erf node `e` (the last one is the final Mul), or {}.
std::vector<int> MatchGelu(const ir::Graph& g, int e) {
  const ir::Node& erf = g.nodes[e];
  if (erf.inputs.size() != 1 || erf.outputs.size() != 1) return {};
  std::string x;
  const int scale = ScaledInput(g, erf.inputs[0], M_SQRT1_2, M_SQRT2, &x);
  if (scale < 0) return {};
  const int add = SoleConsumer(g, erf.outputs[0]);
  if (add < 0 || !IsScalarConst(g, OtherOperand(g.nodes[add], "Add", erf.outputs[0]), 1.0))
    return {};
  const std::string& a = g.nodes[add].outputs[0];
  const int m1 = SoleConsumer(g, a);
  if (m1 < 0) return {};
  const std::string other = OtherOperand(g.nodes[m1], "Mul", a);
  if (other.empty()) return {};
  if (other == x || IsScalarConst(g, other, 0.5)) {  // (x·a)·½ or (½·a)·x
    const int m2 = SoleConsumer(g, g.nodes[m1].outputs[0]);
    if (m2 < 0) return {};
    const std::string last = OtherOperand(g.nodes[m2], "Mul", g.nodes[m1].outputs[0]);
    if (other == x ? !IsScalarConst(g, last, 0.5) : last != x) return {};
    return {scale, e, add, m1, m2};
  }
  std::string x_half;  // (x·½)·a
  const int half = ScaledInput(g, other, 0.5, 2.0, &x_half);
  if (half < 0 || x_half != x) return {};
  return {scale, e, add, half, m1};
}

}  // namespace

int FuseGelu(ir::Graph& graph) {
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    std::vector<int> nodes;
    if (graph.nodes[i].op == "Erf") nodes = MatchGelu(graph, static_cast<int>(i));
    if (nodes.empty()) {
      ++i;
      continue;
    }
    std::string x;
    ScaledInput(graph, graph.nodes[i].inputs[0], M_SQRT1_2, M_SQRT2, &x);
    ir::Node& out = graph.nodes[nodes.back()];
    out.op = "Gelu";
    out.inputs = {x};
    out.attrs.clear();
    nodes.pop_back();
    std::sort(nodes.rbegin(), nodes.rend());
    for (int n : nodes) graph.nodes.erase(graph.nodes.begin() + n);
    i = 0;  // indices moved; the scan restarts (graphs are small, matches rare)
    ++fused;
  }
  graph.PruneUnusedTensors();
  return fused;
}

}  // namespace edgefold::compiler::passes
