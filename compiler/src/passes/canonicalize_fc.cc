#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// W[K,N] = alpha·op(B), op = transpose when transB.
std::vector<double> PackWeights(const ir::Tensor& b, bool trans_b, double alpha, int64_t* k, int64_t* n) {
  const int64_t rows = b.shape[0], cols = b.shape[1];
  *k = trans_b ? cols : rows;
  *n = trans_b ? rows : cols;
  std::vector<double> w(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const double v = alpha * b.data[r * cols + c];
      if (trans_b) w[c * rows + r] = v;  // B is [N,K]: W[c][r]
      else w[r * cols + c] = v;
    }
  return w;
}

// bias[N] = beta·C, with C constant over the M rows (shapes [], [1], [N], [1,N], [1,1]).
std::vector<double> PackBias(const ir::Node& node, const ir::Tensor& c, double beta, int64_t n) {
  const std::vector<int64_t>& s = c.shape;
  const int64_t rows = s.size() == 2 ? s[0] : 1;
  const int64_t cols = s.empty() ? 1 : s.back();
  if (s.size() > 2 || rows != 1 || (cols != 1 && cols != n))
    throw CompileError(node.Msg("input C of shape " + ir::ShapeString(s) +
                                " varies over rows (only a per-column bias is supported)"));
  std::vector<double> bias(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) bias[j] = beta * c.data[cols == 1 ? 0 : j];
  return bias;
}

void RewriteGemm(ir::Graph& g, ir::Node& node) {
  if (node.inputs.size() < 2 || !g.IsConst(node.inputs[1]))
    throw CompileError(node.Msg("input B must be a constant (weights)"));
  if (g.IsConst(node.inputs[0])) throw CompileError(node.Msg("input A must not be a constant"));
  if (node.Int("transA", 0) != 0) throw CompileError(node.Msg("attribute 'transA'=1 is unsupported"));
  const ir::Tensor& b = g.At(node.inputs[1]);
  if (b.shape.size() != 2) throw CompileError(node.Msg("input B must be 2-D"));
  int64_t k = 0, n = 0;
  std::vector<double> w = PackWeights(b, node.Int("transB", 0) != 0, node.Float("alpha", 1.0), &k, &n);
  std::string bias;
  if (!node.In(2).empty()) {
    if (!g.IsConst(node.inputs[2])) throw CompileError(node.Msg("input C must be a constant"));
    bias = g.AddConst(node.name + ".bias", {n}, PackBias(node, g.At(node.inputs[2]), node.Float("beta", 1.0), n));
  }
  const std::string weights = g.AddConst(node.name + ".weight_kn", {k, n}, std::move(w));
  node.op = "FC";
  node.inputs = {node.inputs[0], weights, bias};
  node.attrs.clear();
}

void RewriteMatMul(ir::Graph& g, ir::Node& node) {
  const ir::Tensor& a = g.At(node.inputs[0]);
  const ir::Tensor& b = g.At(node.inputs[1]);
  if (b.shape.size() != 2) throw CompileError(node.Msg("constant B must be 2-D"));
  if (a.is_const) throw CompileError(node.Msg("MatMul of two constants was not folded"));
  if (a.shape_known && a.shape.size() < 2) throw CompileError(node.Msg("input A must have rank >= 2"));
  int64_t k = 0, n = 0;
  std::vector<double> w = PackWeights(b, false, 1.0, &k, &n);
  const std::string weights = g.AddConst(node.name + ".weight_kn", {k, n}, std::move(w));
  node.op = "FC";
  node.inputs = {node.inputs[0], weights, ""};
}

}  // namespace

void CanonicalizeFullyConnected(ir::Graph& graph) {
  for (ir::Node& node : graph.nodes) {
    if (node.op == "Gemm") RewriteGemm(graph, node);
    else if (node.op == "MatMul" && node.inputs.size() == 2 && graph.IsConst(node.inputs[1]))
      RewriteMatMul(graph, node);
  }
  graph.PruneUnusedTensors();
}

}  // namespace edgefold::compiler::passes
