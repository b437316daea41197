#include <utility>

#include "passes/passes.h"

namespace edgefold::compiler::passes {
namespace {

// W[K,N] = alpha·op(B), op = transpose when transB.
std::vector<double> PackWeights(const ir::Tensor& b, bool trans_b, double alpha, int64_t* k,
                                int64_t* n) {
  const int64_t rows = b.shape[0], cols = b.shape[1];
  *k = trans_b ? cols : rows;
  *n = trans_b ? rows : cols;
  std::vector<double> w(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const double v = alpha * b.data[r * cols + c];
      if (trans_b)
        w[c * rows + r] = v;  // B is [N,K]: W[c][r]
      else
        w[r * cols + c] = v;
    }
  return w;
}

// True when C (shapes [], [1], [N], [1,N], [1,1]) is the same for every row: a bias.
bool IsRowBias(const ir::Tensor& c, int64_t n) {
  const std::vector<int64_t>& s = c.shape;
  const int64_t rows = s.size() == 2 ? s[0] : 1;
  const int64_t cols = s.empty() ? 1 : s.back();
  return s.size() <= 2 && rows == 1 && (cols == 1 || cols == n);
}

// bias[N] = beta·C for a row bias.
std::vector<double> PackBias(const ir::Tensor& c, double beta, int64_t n) {
  const int64_t cols = c.shape.empty() ? 1 : c.shape.back();
  std::vector<double> bias(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) bias[j] = beta * c.data[cols == 1 ? 0 : j];
  return bias;
}

// A fresh activation tensor named after `hint`, shaped like `like`.
std::string NewActivation(ir::Graph& g, const std::string& hint, const std::string& like) {
  std::string name = hint;
  for (int k = 1; g.tensors.count(name); ++k) name = hint + "_" + std::to_string(k);
  ir::Tensor t = g.At(like);
  t.name = name;
  t.is_const = false;
  t.data.clear();
  g.tensors[name] = std::move(t);
  return name;
}

// A = transpose(A) for transA=1: A (an activation: a constant A is
// rejected earlier) gets a Transpose node inserted before the Gemm (at `index`). Returns nodes inserted.
int TransposeA(ir::Graph& g, size_t index) {
  ir::Node& node = g.nodes[index];
  const ir::Tensor a = g.At(node.inputs[0]);
  if (!a.shape_known || a.shape.size() != 2)
    throw CompileError(node.Msg("input A must be 2-D with a known shape"));
  ir::Node t;
  t.name = node.name + ".transA";
  t.op = "Transpose";
  t.inputs = {node.inputs[0]};
  const std::string out = NewActivation(g, node.name + ".A_t", node.inputs[0]);
  g.At(out).shape = {a.shape[1], a.shape[0]};
  t.outputs = {out};
  node.inputs[0] = out;
  node.attrs.erase("transA");
  g.nodes.insert(g.nodes.begin() + static_cast<long>(index), std::move(t));
  return 1;
}

// Y = FC(A) + beta·C for a C that varies over rows (e.g. [M,N]) or is an activation: FC
// without bias, then a Binary Add (after a Mul by beta when C is an activation and beta≠1).
// Returns nodes inserted.
int AddMatrixBias(ir::Graph& g, size_t index, const std::string& c_name, double beta) {
  int inserted = 0;
  std::string cst = c_name;
  if (g.IsConst(c_name)) {
    const ir::Tensor& c = g.At(c_name);
    std::vector<double> scaled(c.data);
    for (double& v : scaled) v *= beta;
    cst = g.AddConst(g.nodes[index].name + ".C", c.shape, std::move(scaled));
  } else if (beta != 1.0) {
    ir::Node mul;
    mul.name = g.nodes[index].name + ".beta_C";
    mul.op = "Mul";
    mul.inputs = {c_name, g.AddConst(mul.name + ".beta", {}, {beta})};
    cst = NewActivation(g, mul.name, c_name);
    mul.outputs = {cst};
    g.nodes.insert(g.nodes.begin() + static_cast<long>(++index), std::move(mul));
    ++inserted;
  }
  ir::Node& node = g.nodes[index - inserted];
  const std::string y = node.outputs[0];
  const std::string mid = NewActivation(g, node.name + ".no_bias", y);
  node.outputs[0] = mid;
  ir::Node add;
  add.name = node.name + ".add_C";
  add.op = "Add";
  add.inputs = {mid, cst};
  add.outputs = {y};
  g.nodes.insert(g.nodes.begin() + static_cast<long>(index) + 1, std::move(add));
  return inserted + 1;
}

// Rewrites nodes[index]; returns how many nodes were inserted before and after it.
std::pair<int, int> RewriteGemm(ir::Graph& g, size_t index) {
  ir::Node* node = &g.nodes[index];
  if (node->inputs.size() < 2 || !g.IsConst(node->inputs[1]))
    throw CompileError(node->Msg("input B must be a constant (weights)"));
  if (g.IsConst(node->inputs[0])) throw CompileError(node->Msg("input A must not be a constant"));
  int before = 0;
  if (node->Int("transA", 0) != 0) {
    before = TransposeA(g, index);
    index += before;
    node = &g.nodes[index];
  }
  const ir::Tensor& b = g.At(node->inputs[1]);
  if (b.shape.size() != 2) throw CompileError(node->Msg("input B must be 2-D"));
  int64_t k = 0, n = 0;
  std::vector<double> w =
      PackWeights(b, node->Int("transB", 0) != 0, node->Float("alpha", 1.0), &k, &n);
  std::string bias, matrix_c;
  const double beta = node->Float("beta", 1.0);
  if (!node->In(2).empty()) {
    const ir::Tensor& c = g.At(node->inputs[2]);
    if (!c.shape_known) throw CompileError(node->Msg("input C has no static shape"));
    if (c.is_const && IsRowBias(c, n))
      bias = g.AddConst(node->name + ".bias", {n}, PackBias(c, beta, n));
    else
      matrix_c = node->inputs[2];
  }
  const std::string weights = g.AddConst(node->name + ".weight_kn", {k, n}, std::move(w));
  node->op = "FC";
  node->inputs = {node->inputs[0], weights, bias};
  node->attrs.clear();
  const int after = matrix_c.empty() ? 0 : AddMatrixBias(g, index, matrix_c, beta);
  return {before, after};
}

void RewriteMatMul(ir::Graph& g, ir::Node& node) {
  const ir::Tensor& a = g.At(node.inputs[0]);
  const ir::Tensor& b = g.At(node.inputs[1]);
  if (b.shape.size() != 2) throw CompileError(node.Msg("constant B must be 2-D"));
  if (a.is_const) throw CompileError(node.Msg("MatMul of two constants was not folded"));
  if (a.shape_known && a.shape.size() < 2)
    throw CompileError(node.Msg("input A must have rank >= 2"));
  int64_t k = 0, n = 0;
  std::vector<double> w = PackWeights(b, false, 1.0, &k, &n);
  const std::string weights = g.AddConst(node.name + ".weight_kn", {k, n}, std::move(w));
  node.op = "FC";
  node.inputs = {node.inputs[0], weights, ""};
}

}  // namespace

void CanonicalizeFullyConnected(ir::Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    ir::Node& node = graph.nodes[i];
    if (node.op == "Gemm") {
      const std::pair<int, int> inserted = RewriteGemm(graph, i);
      i += static_cast<size_t>(inserted.first + inserted.second);
    } else if (node.op == "MatMul" && node.inputs.size() == 2 && graph.IsConst(node.inputs[1])) {
      RewriteMatMul(graph, node);
    }
  }
  graph.PruneUnusedTensors();
}

}  // namespace edgefold::compiler::passes
