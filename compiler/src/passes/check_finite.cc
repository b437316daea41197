// Checks of constant operands before any pass relies on them.
//
// Rejects NaN and Inf in float constants: a weight that is not a number makes every output
// that depends on it NaN, silently. Runs after constant folding, so it also catches values
// that folding produced (e.g. a division by zero).
#include <cmath>
#include <sstream>

#include "passes/passes.h"

namespace edgefold::compiler::passes {

void CheckFiniteConstants(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes) {
    for (const std::string& in : node.inputs) {
      if (in.empty() || !graph.IsConst(in)) continue;
      const ir::Tensor& t = graph.At(in);
      if (t.dtype != ir::kFloat && t.dtype != ir::kDouble) continue;
      for (size_t i = 0; i < t.data.size(); ++i) {
        if (std::isfinite(t.data[i])) continue;
        std::ostringstream what;
        what << "constant input '" << in << "'[" << i << "] is "
             << (std::isnan(t.data[i]) ? "NaN" : "infinite");
        throw CompileError(node.Msg(what.str()));
      }
    }
  }
}

void CheckConvOperands(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes) {
    const bool transpose = node.op == "ConvTranspose";
    if ((node.op != "Conv" && !transpose) || node.In(1).empty() || node.In(2).empty()) continue;
    if (!graph.IsConst(node.In(1)) || !graph.IsConst(node.In(2))) continue;
    const ir::Tensor& w = graph.At(node.In(1));
    const ir::Tensor& b = graph.At(node.In(2));
    if (w.shape.size() < (transpose ? 2u : 1u)) continue;  // the lowering names a wrong W rank
    // Conv W [Cout, Cin/g, k...]; ConvTranspose W [Cin, Cout/g, k...]
    const int64_t out_c = transpose ? w.shape[1] * node.Int("group", 1) : w.shape[0];
    if (static_cast<int64_t>(b.data.size()) != out_c) {
      std::ostringstream what;
      what << "bias '" << b.name << "' has " << b.data.size() << " values for " << out_c
           << " output channels (W " << ir::ShapeString(w.shape) << ")";
      throw CompileError(node.Msg(what.str()));
    }
  }
}

}  // namespace edgefold::compiler::passes
