#include "train/trainable_set.h"

#include <algorithm>

namespace edgefold::compiler {

std::vector<int32_t> TrainableTensors(const GraphOutline& g, TrainableSet set) {
  using Role = GraphOutline::OpRole;
  int head = -1;  // the last Conv or Gemm in topological order
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].role == Role::kConv || g.ops[i].role == Role::kGemm) head = static_cast<int>(i);
  std::vector<bool> trained(g.tensors.size(), false);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const GraphOutline::Op& op = g.ops[i];
    const bool weights = op.role == Role::kConv || op.role == Role::kGemm;
    const bool take =
        op.role == Role::kBatchNorm ||
        (weights && (set == TrainableSet::kAll ||
                     (set == TrainableSet::kBatchNormAndHead && static_cast<int>(i) == head)));
    if (!take) continue;
    // A BatchNorm's γ, β (inputs 1, 2); a Conv's or Gemm's weights and bias (inputs 1 on).
    const size_t last =
        op.role == Role::kBatchNorm ? std::min<size_t>(op.inputs.size(), 3) : op.inputs.size();
    for (size_t k = 1; k < last; ++k) {
      const int32_t t = op.inputs[k];
      if (t >= 0 && static_cast<size_t>(t) < g.tensors.size() && g.tensors[t].is_const)
        trained[t] = true;
    }
  }
  std::vector<int32_t> out;
  for (size_t t = 0; t < trained.size(); ++t)
    if (trained[t]) out.push_back(static_cast<int32_t>(t));
  return out;
}

int FirstTrainedOp(const GraphOutline& g, const TrainingOptions& t, std::string* error) {
  if (!t.train_from.empty() && t.trainable_last > 0) {
    *error = "--train-from and --trainable-last both choose where training starts: give one";
    return -1;
  }
  if (!t.train_from.empty()) {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const GraphOutline::Op& op = g.ops[i];
      const bool output = !op.outputs.empty() && g.tensors[op.outputs[0]].name == t.train_from;
      if (op.name == t.train_from || output) return static_cast<int>(i);
    }
    *error = "--train-from '" + t.train_from +
             "': no node or tensor of that name in the compiled "
             "graph (BatchNorm, Conv and Gemm nodes keep their ONNX names under --train)";
    return -1;
  }
  if (t.trainable_last <= 0) return 0;
  std::vector<int> bns;
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].role == GraphOutline::OpRole::kBatchNorm) bns.push_back(static_cast<int>(i));
  if (static_cast<size_t>(t.trainable_last) > bns.size()) {
    *error = "--trainable-last " + std::to_string(t.trainable_last) + ": the model has " +
             std::to_string(bns.size()) + " BatchNorm layers";
    return -1;
  }
  return bns[bns.size() - static_cast<size_t>(t.trainable_last)];
}

std::vector<int32_t> TrainedFrom(const GraphOutline& g, const std::vector<int32_t>& tensors,
                                 int first_op) {
  std::vector<int32_t> kept;
  for (int32_t t : tensors) {
    bool after = false;
    for (size_t i = static_cast<size_t>(first_op); i < g.ops.size() && !after; ++i)
      for (int32_t in : g.ops[i].inputs) after |= in == t;
    if (after) kept.push_back(t);
  }
  return kept;
}

}  // namespace edgefold::compiler
