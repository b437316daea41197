#include "plan/tensor_views.h"

#include <algorithm>

#include "base/contiguous_slice.h"
#include "ir/graph.h"
#include "plan/arena_planner.h"

namespace edgefold::compiler {
namespace {

// The first element a Slice from x to y reads when it selects one contiguous run of x, else -1.
int64_t SliceRunStart(const LoweredTensor& x, const LoweredTensor& y, const fb::SliceOptionsT& o) {
  const size_t rank = x.shape.size();
  if (y.shape.size() != rank || o.starts.size() != rank || o.steps.size() != rank) return -1;
  return ContiguousSliceStart(rank, x.shape, y.shape, o.starts, o.steps);
}

}  // namespace

int ViewRoot(const std::vector<TensorView>& views, int t, uint64_t* offset) {
  *offset = 0;
  while (views[t].parent >= 0) {
    *offset += views[t].offset;
    t = views[t].parent;
  }
  return t;
}

std::vector<TensorView> FindTensorViews(const LoweredModel& model) {
  const size_t count = model.tensors.size();
  std::vector<TensorView> views(count);
  std::vector<bool> own(count, false);  // may share: a planned activation, not a graph input/output
  for (size_t t = 0; t < count; ++t) own[t] = !model.tensors[t].is_const;
  for (int t : model.inputs) own[t] = false;
  for (int t : model.outputs) own[t] = false;
  const auto shareable = [&](int t) { return t >= 0 && own[t]; };
  const auto aligned = [](uint64_t bytes) { return bytes % kArenaAlignmentBytes == 0; };
  for (const fb::OperatorT& op : model.ops) {
    if (op.outputs.size() != 1 || op.inputs.empty()) continue;
    const int x = op.inputs[0], y = op.outputs[0];
    if (!shareable(y) || views[y].parent >= 0) continue;
    if (op.type == fb::OpType::Reshape) {
      if (shareable(x) && model.tensors[x].bytes == model.tensors[y].bytes) views[y] = {x, 0};
    } else if (op.type == fb::OpType::Slice) {
      const fb::SliceOptionsT* o = op.options.AsSliceOptions();
      const LoweredTensor& tx = model.tensors[x];
      const int64_t elems = ir::NumElements(tx.shape);
      if (!shareable(x) || o == nullptr || elems <= 0) continue;
      const int64_t start = SliceRunStart(tx, model.tensors[y], *o);
      const uint64_t offset =
          static_cast<uint64_t>(start) * (tx.bytes / static_cast<uint64_t>(elems));
      if (start >= 0 && aligned(offset)) views[y] = {x, offset};
    } else if (op.type == fb::OpType::Concat) {
      const fb::ConcatOptionsT* o = op.options.AsConcatOptions();
      const LoweredTensor& ty = model.tensors[y];
      if (o == nullptr || o->axis < 0 || static_cast<size_t>(o->axis) >= ty.shape.size()) continue;
      if (!std::all_of(ty.shape.begin(), ty.shape.begin() + o->axis,
                       [](int64_t d) { return d == 1; }))
        continue;
      uint64_t offset = 0;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const int xi = op.inputs[i];
        if (xi < 0) break;
        uint64_t unused = 0;
        bool alone = shareable(xi) && xi != y && views[xi].parent < 0 && aligned(offset);
        for (size_t j = 0; alone && j < op.inputs.size(); ++j)
          alone = j == i || op.inputs[j] < 0 || ViewRoot(views, op.inputs[j], &unused) != xi;
        if (alone) views[xi] = {y, offset};
        offset += model.tensors[xi].bytes;
      }
    }
  }
  return views;
}

}  // namespace edgefold::compiler
