// LayerNormalization as exports below opset 17 spell it (PyTorch, opset 13/14):
//   m = ReduceMean(x, axes = the last k dims)          d = Sub(x, m)
//   v = ReduceMean(Pow(d, 2) | Mul(d, d), same axes)   s = Sqrt(Add(v, ε))
//   y = Add(Mul(Div(d, s), γ), β)                      (Mul and Add optional, either order)
// becomes one LayerNormalization node (axis = rank − k, epsilon = ε, Scale γ or ones, B β).
// Everything is checked: both means keep dims over the same trailing axes, ε and the exponent
// are scalar constants, γ and β are constants that vary over the normalized dims only, every
// intermediate feeds only the next op (d: the square and the Div) and none is a graph output.
// Anything else stays as it is and runs through the Reduce ops.
#include <algorithm>
#include <vector>

#include "passes/const_eval.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// Axes of a ReduceMean with keepdims = 1 (attribute, or the constant input of newer opsets),
// normalized and sorted; empty when it is no such node.
std::vector<int64_t> KeptMeanAxes(const ir::Graph& g, const ir::Node& n, int64_t rank) {
  if (n.op != "ReduceMean" || n.outputs.size() != 1 || n.Int("keepdims", 1) != 1) return {};
  std::vector<int64_t> axes = n.Ints("axes", {});
  if (!n.In(1).empty()) {
    if (!g.IsConst(n.inputs[1])) return {};
    for (double a : g.At(n.inputs[1]).data) axes.push_back(static_cast<int64_t>(a));
  }
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return {};
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

// A constant that broadcasts against x [rank] varying over the last k dims only, holding
// `cols` values: its dims before the last k (right-aligned) are all 1.
bool IsNormalizedDimsConst(const ir::Graph& g, const std::string& name,
                           const std::vector<int64_t>& xs, int64_t k) {
  if (name.empty() || !g.IsConst(name)) return false;
  const std::vector<int64_t>& s = g.At(name).shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  if (static_cast<int64_t>(s.size()) > rank) return false;
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i) {
    const int64_t xd = rank - static_cast<int64_t>(s.size()) + i;
    if (xd < rank - k ? s[i] != 1 : (s[i] != xs[xd] && s[i] != 1)) return false;
  }
  return true;
}

struct Match {
  std::vector<int> nodes;  // every node of the pattern; the last one's output is y
  std::string x, scale, bias;
  int64_t axis = 0;
  double eps = 0;
};

// d feeds exactly the square and the Div (Mul(d, d) reads it twice): their nodes, or false.
bool FindSquareAndDiv(const ir::Graph& g, const std::string& d, int* sq, int* div) {
  if (g.IsGraphOutput(d)) return false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (std::find(n.inputs.begin(), n.inputs.end(), d) == n.inputs.end()) continue;
    const bool square =
        n.inputs.size() == 2 && n.act.kind == kernels::ActKind::kNone &&
        ((n.op == "Pow" && n.inputs[0] == d && IsScalarConst(g, n.inputs[1], 2.0)) ||
         (n.op == "Mul" && n.inputs[0] == d && n.inputs[1] == d));
    const bool divide = n.op == "Div" && n.inputs.size() == 2 && n.inputs[0] == d &&
                        n.act.kind == kernels::ActKind::kNone;
    if (square && *sq < 0)
      *sq = static_cast<int>(i);
    else if (divide && *div < 0)
      *div = static_cast<int>(i);
    else
      return false;
  }
  return *sq >= 0 && *div >= 0;
}

// Optional Mul(·, γ) then Add(·, β) on the normalized value y, added to the match.
void MatchAffine(const ir::Graph& g, std::string y, const std::vector<int64_t>& xs, int64_t k,
                 Match* m) {
  const int mul = SoleConsumer(g, y);
  if (mul < 0 || !IsNormalizedDimsConst(g, OtherOperand(g.nodes[mul], "Mul", y), xs, k)) return;
  m->scale = OtherOperand(g.nodes[mul], "Mul", y);
  m->nodes.push_back(mul);
  y = g.nodes[mul].outputs[0];
  const int bias = SoleConsumer(g, y);
  if (bias >= 0 && IsNormalizedDimsConst(g, OtherOperand(g.nodes[bias], "Add", y), xs, k)) {
    m->bias = OtherOperand(g.nodes[bias], "Add", y);
    m->nodes.push_back(bias);
  }
}

// The pattern starting at ReduceMean node `r`; nodes empty when it does not fit.
Match MatchAt(const ir::Graph& g, int r) {
  Match m;
  const ir::Node& mean = g.nodes[r];
  if (mean.inputs.empty() || g.IsConst(mean.inputs[0]) || !g.At(mean.inputs[0]).shape_known)
    return m;
  const std::string x = mean.inputs[0];
  const std::vector<int64_t>& xs = g.At(x).shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  const std::vector<int64_t> axes = KeptMeanAxes(g, mean, rank);
  const int64_t k = static_cast<int64_t>(axes.size());
  for (int64_t i = 0; i < k; ++i)
    if (axes[i] != rank - k + i) return m;
  if (k == 0) return m;
  const int sub = SoleConsumer(g, mean.outputs[0]);
  if (sub < 0 || g.nodes[sub].op != "Sub" || g.nodes[sub].inputs.size() != 2 ||
      g.nodes[sub].inputs[0] != x || g.nodes[sub].inputs[1] != mean.outputs[0] ||
      g.nodes[sub].act.kind != kernels::ActKind::kNone)
    return m;
  const std::string d = g.nodes[sub].outputs[0];
  int sq = -1, div = -1;
  if (!FindSquareAndDiv(g, d, &sq, &div)) return m;
  const int var = SoleConsumer(g, g.nodes[sq].outputs[0]);
  if (var < 0 || g.nodes[var].inputs.at(0) != g.nodes[sq].outputs[0] ||
      KeptMeanAxes(g, g.nodes[var], rank) != axes)
    return m;
  const int add = SoleConsumer(g, g.nodes[var].outputs[0]);
  if (add < 0) return m;
  const std::string eps = OtherOperand(g.nodes[add], "Add", g.nodes[var].outputs[0]);
  if (eps.empty() || !g.IsConst(eps) || g.At(eps).data.size() != 1 || !(g.At(eps).data[0] >= 0))
    return m;
  const int sqrt = SoleConsumer(g, g.nodes[add].outputs[0]);
  if (sqrt < 0 || g.nodes[sqrt].op != "Sqrt" || g.nodes[sqrt].act.kind != kernels::ActKind::kNone)
    return m;
  if (SoleConsumer(g, g.nodes[sqrt].outputs[0]) != div ||
      g.nodes[div].inputs[1] != g.nodes[sqrt].outputs[0])
    return m;
  m.nodes = {r, sub, sq, var, add, sqrt, div};
  m.x = x;
  m.axis = rank - k;
  m.eps = g.At(eps).data[0];
  MatchAffine(g, g.nodes[div].outputs[0], xs, k, &m);
  return m;
}

// Scale or bias as the normalized dims' values: broadcast `name` over x's last k dims.
std::string Widen(ir::Graph& g, const std::string& name, const std::vector<int64_t>& xs,
                  int64_t axis, const std::string& hint) {
  const std::vector<int64_t> dims(xs.begin() + axis, xs.end());
  const int64_t cols = ir::NumElements(dims);
  std::vector<double> v(static_cast<size_t>(cols), 1.0);
  if (!name.empty()) {
    const ir::Tensor& t = g.At(name);
    std::vector<int64_t> ts(dims.size(), 1);  // t's shape right-aligned over dims
    for (size_t i = 0; i < t.shape.size() && i < dims.size(); ++i)
      ts[dims.size() - 1 - i] = t.shape[t.shape.size() - 1 - i];
    for (int64_t flat = 0; flat < cols; ++flat) {
      int64_t rest = flat, src = 0, step = 1;
      for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
        const int64_t idx = rest % dims[d];
        rest /= dims[d];
        if (ts[d] != 1) src += idx * step;
        step *= ts[d];
      }
      v[static_cast<size_t>(flat)] = t.data[static_cast<size_t>(src)];
    }
  }
  return g.AddConst(hint, dims, std::move(v));
}

}  // namespace

int FuseLayerNorm(ir::Graph& graph) {
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    Match m;
    if (graph.nodes[i].op == "ReduceMean") m = MatchAt(graph, static_cast<int>(i));
    if (m.nodes.empty()) {
      ++i;
      continue;
    }
    const std::vector<int64_t> xs = graph.At(m.x).shape;
    const int last = *std::max_element(m.nodes.begin(), m.nodes.end());
    ir::Node& out = graph.nodes[last];
    const std::string base = graph.nodes[m.nodes[0]].name;
    const std::string scale = Widen(graph, m.scale, xs, m.axis, base + "_scale");
    const std::string bias =
        m.bias.empty() ? std::string() : Widen(graph, m.bias, xs, m.axis, base + "_bias");
    out.op = "LayerNormalization";
    out.inputs = {m.x, scale, bias};
    if (bias.empty()) out.inputs.pop_back();
    out.attrs.clear();
    out.attrs["axis"].kind = ir::Attr::kInt;
    out.attrs["axis"].i = m.axis;
    out.attrs["epsilon"].kind = ir::Attr::kFloat;
    out.attrs["epsilon"].f = m.eps;
    std::vector<int> drop(m.nodes.begin(), m.nodes.end());
    drop.erase(std::find(drop.begin(), drop.end(), last));
    std::sort(drop.rbegin(), drop.rend());
    for (int n : drop) graph.nodes.erase(graph.nodes.begin() + n);
    i = 0;  // indices moved; the scan restarts (graphs are small)
    ++fused;
  }
  graph.PruneUnusedTensors();
  return fused;
}

}  // namespace edgefold::compiler::passes
