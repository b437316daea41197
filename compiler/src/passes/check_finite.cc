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
        what << "constant input '" << in << "'[" << i << "] is " << (std::isnan(t.data[i]) ? "NaN" : "infinite");
        throw CompileError(node.Msg(what.str()));
      }
    }
  }
}

}  // namespace edgefold::compiler::passes
