// ReduceMean, ReduceSum, ReduceMax, ReduceSumSquare over any axes (attribute, or ReduceSum-13's
// constant input), keepdims 0/1.
//
// The runtime op reduces one run of consecutive dims. Axes that form several runs become a chain,
// last run first: the mean of means over equal-sized groups is the mean, likewise max and sum;
// SumSquare squares in the first step only and sums after. A mean over exactly the spatial dims
// 2.. of a rank ≥ 3 tensor stays a GlobalAveragePool, which the trainer can differentiate.
#include <algorithm>

#include "lower/lower_context.h"
#include "passes/const_eval.h"

namespace edgefold::compiler {
namespace {

fb::ReduceKind KindOf(const std::string& op) {
  if (op == "ReduceSum") return fb::ReduceKind::Sum;
  if (op == "ReduceMax") return fb::ReduceKind::Max;
  if (op == "ReduceSumSquare") return fb::ReduceKind::SumSquare;
  return fb::ReduceKind::Mean;
}

// Sorted, distinct, non-negative axes; empty when the node reduces nothing (noop_with_empty_axes).
std::vector<int64_t> ReducedAxes(LowerContext& ctx, const ir::Node& n, int64_t rank) {
  std::vector<int64_t> axes = ConstInts(ctx, n, 1, "axes", "axes");
  if (axes.empty()) {
    if (n.Int("noop_with_empty_axes", 0) != 0) return {};
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  for (int64_t& a : axes) a = passes::NormalizeAxis(n, a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw CompileError(n.Msg("attribute 'axes' repeats an axis"));
  return axes;
}

bool IsSpatialMean(const ir::Node& n, const std::vector<int64_t>& axes, int64_t rank) {
  if (n.op != "ReduceMean" || rank < 3 || static_cast<int64_t>(axes.size()) != rank - 2)
    return false;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != static_cast<int64_t>(i) + 2) return false;
  return true;
}

void AddReduce(LowerContext& ctx, const ir::Node& n, fb::ReduceKind kind, int64_t axis,
               int64_t count, int x, int y) {
  fb::ReduceOptionsT opt;
  opt.kind = kind;
  opt.axis = ToInt32(n, axis, "axis");
  opt.count = ToInt32(n, count, "axis count");
  ctx.AddOp(fb::OpType::Reduce, n, {x}, {y}).options.Set(std::move(opt));
}

}  // namespace

void LowerReduce(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const std::vector<int64_t> xs = ctx.Shape(x);
  const int64_t rank = static_cast<int64_t>(xs.size());
  const std::vector<int64_t> axes = ReducedAxes(ctx, n, rank);
  const bool keepdims = n.Int("keepdims", 1) != 0;
  if (axes.empty()) {  // noop_with_empty_axes: Y = X
    ctx.AddOp(fb::OpType::Reshape, n, {x}, {y}).options.Set(fb::ReshapeOptionsT());
    return;
  }
  if (IsSpatialMean(n, axes, rank)) {
    fb::GlobalPoolOptionsT opt;
    opt.kind = fb::PoolKind::Average;
    if (keepdims) {
      ctx.AddOp(fb::OpType::GlobalPool, n, {x}, {y}).options.Set(std::move(opt));
      return;
    }
    std::vector<int64_t> kept(xs.begin(), xs.begin() + 2);
    kept.resize(static_cast<size_t>(rank), 1);
    const int pooled = ctx.NewTensor(n.name + "_pooled", kept, false, {});
    ctx.AddOp(fb::OpType::GlobalPool, n, {x}, {pooled}).options.Set(std::move(opt));
    ctx.AddOp(fb::OpType::Reshape, n, {pooled}, {y}).options.Set(fb::ReshapeOptionsT());
    return;
  }
  // Runs of consecutive axes as [first, count], innermost run first.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t a : axes) {
    if (!runs.empty() && runs.back().first + runs.back().second == a)
      ++runs.back().second;
    else
      runs.push_back({a, 1});
  }
  std::reverse(runs.begin(), runs.end());
  if (runs.size() == 1) {
    AddReduce(ctx, n, KindOf(n.op), runs[0].first, runs[0].second, x, y);
    return;
  }
  fb::ReduceKind kind = KindOf(n.op);
  std::vector<int64_t> shape = xs;
  int cur = x;
  for (size_t r = 0; r < runs.size(); ++r) {
    for (int64_t d = runs[r].first; d < runs[r].first + runs[r].second; ++d) shape[d] = 1;
    const bool last = r + 1 == runs.size();
    const int next = last && keepdims
                         ? y
                         : ctx.NewTensor(n.name + "_reduced" + std::to_string(r), shape, false, {});
    AddReduce(ctx, n, kind, runs[r].first, runs[r].second, cur, next);
    if (kind == fb::ReduceKind::SumSquare) kind = fb::ReduceKind::Sum;
    cur = next;
  }
  if (!keepdims) ctx.AddOp(fb::OpType::Reshape, n, {cur}, {y}).options.Set(fb::ReshapeOptionsT());
}

}  // namespace edgefold::compiler
