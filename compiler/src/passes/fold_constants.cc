#include "passes/const_eval.h"
#include "passes/passes.h"

namespace edgefold::compiler::passes {

int FoldConstants(ir::Graph& graph) {
  int removed = 0;
  for (size_t i = 0; i < graph.nodes.size();) {
    const ir::Node& n = graph.nodes[i];
    if (!CanEvalConst(graph, n)) {
      ++i;
      continue;
    }
    std::vector<ir::Tensor> values = EvalConst(graph, n);
    if (values.size() != n.outputs.size())
      throw CompileError(n.Msg("evaluator output count mismatch"));
    for (size_t k = 0; k < values.size(); ++k) {
      ir::Tensor& dst = graph.At(n.outputs[k]);
      if (dst.shape_known && dst.shape != values[k].shape)
        throw CompileError(n.Msg("folded output '" + n.outputs[k] + "' has shape " +
                                 ir::ShapeString(values[k].shape) + ", ONNX inferred " +
                                 ir::ShapeString(dst.shape)));
      values[k].name = n.outputs[k];
      dst = std::move(values[k]);
    }
    graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i));
    ++removed;
  }
  graph.PruneUnusedTensors();
  return removed;
}

}  // namespace edgefold::compiler::passes
