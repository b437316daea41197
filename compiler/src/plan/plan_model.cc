#include "plan/plan_model.h"

#include <algorithm>

#include "plan/arena_planner.h"
#include "plan/tensor_views.h"

namespace edgefold::compiler {

namespace {

struct SharedScratch {
  uint64_t bytes = 0;
  int first_step = -1, last_step = -1;
};

SharedScratch FindSharedScratch(const LoweredModel& model) {
  SharedScratch shared;
  for (int step = 0; step < static_cast<int>(model.ops.size()); ++step) {
    const fb::OperatorT& op = model.ops[step];
    if (op.scratch_slices <= 1 || op.scratch_bytes == 0) continue;
    shared.bytes = std::max<uint64_t>(shared.bytes, op.scratch_bytes);
    if (shared.first_step < 0) shared.first_step = step;
    shared.last_step = step;
  }
  return shared;
}

bool InSharedScratch(const SharedScratch& shared, const fb::OperatorT& op, int step) {
  return shared.bytes > 0 && step >= shared.first_step && step <= shared.last_step &&
         op.scratch_bytes <= shared.bytes;
}

// One planner buffer per op with scratch, returned by step (-1: none). Ops in scratch slices
// (Operator.scratch_slices) share one buffer, live from the first to the last of them, so that
// slice t is at one place for all; ops between them whose scratch fits take theirs there too
// (nothing lives in it from one op to the next).
std::vector<int> AddScratchBuffers(const LoweredModel& model, ArenaPlanner* planner) {
  const int steps = static_cast<int>(model.ops.size());
  std::vector<int> scratch_buffer(steps, -1);
  const SharedScratch shared = FindSharedScratch(model);
  int shared_buffer = -1;
  if (shared.bytes > 0)
    shared_buffer = planner->AddBuffer(shared.bytes, shared.first_step, shared.last_step);
  for (int step = 0; step < steps; ++step) {
    const fb::OperatorT& op = model.ops[step];
    if (op.scratch_bytes == 0) continue;
    scratch_buffer[step] = InSharedScratch(shared, op, step)
                               ? shared_buffer
                               : planner->AddBuffer(op.scratch_bytes, step, step);
  }
  return scratch_buffer;
}

}  // namespace

void PlanArena(LoweredModel* model, bool share_views) {
  const int steps = static_cast<int>(model->ops.size());
  const int last = std::max(steps - 1, 0);
  const size_t count = model->tensors.size();
  std::vector<int> first(count, -1), final_use(count, -1);
  for (int step = 0; step < steps; ++step) {
    for (int in : model->ops[step].inputs)
      if (in >= 0) final_use[in] = std::max(final_use[in], step);
    for (int out : model->ops[step].outputs)
      if (out >= 0 && first[out] < 0) first[out] = step;
  }
  for (int in : model->inputs) first[in] = 0;
  for (int out : model->outputs) final_use[out] = last;
  // A view's root buffer lives from the first producer to the last consumer of any tensor in it.
  const std::vector<TensorView> views =
      share_views ? FindTensorViews(*model) : std::vector<TensorView>(count);
  std::vector<int> root(count, -1), begin(count, 0), end(count, 0);
  std::vector<uint64_t> view_offset(count, 0);
  std::vector<bool> seen(count, false);
  model->tensor_views = 0;
  for (size_t t = 0; t < count; ++t) {
    if (model->tensors[t].is_const) continue;
    const int r = root[t] = ViewRoot(views, static_cast<int>(t), &view_offset[t]);
    const int b = first[t] < 0 ? 0 : first[t];
    const int e = std::max(final_use[t] < 0 ? b : final_use[t], b);
    begin[r] = seen[r] ? std::min(begin[r], b) : b;
    end[r] = seen[r] ? std::max(end[r], e) : e;
    seen[r] = true;
    model->tensor_views += r != static_cast<int>(t);
  }
  ArenaPlanner planner;
  std::vector<int> tensor_buffer(count, -1);
  for (size_t t = 0; t < count; ++t)
    if (!model->tensors[t].is_const && root[t] == static_cast<int>(t))
      tensor_buffer[t] = planner.AddBuffer(model->tensors[t].bytes, begin[t], end[t]);
  const std::vector<int> scratch_buffer = AddScratchBuffers(*model, &planner);
  planner
      .PlanBestOf();  // a fused expansion's band scratch beside the tensors it spans can defeat size order alone
  for (size_t t = 0; t < count; ++t)
    if (root[t] >= 0)
      model->tensors[t].arena_offset =
          static_cast<int64_t>(planner.offset(tensor_buffer[root[t]]) + view_offset[t]);
  for (int step = 0; step < steps; ++step)
    model->ops[step].scratch_offset =
        scratch_buffer[step] >= 0 ? static_cast<int64_t>(planner.offset(scratch_buffer[step])) : -1;
  model->arena_bytes = planner.arena_bytes();
  model->arena_lower_bound = planner.lower_bound();
}

}  // namespace edgefold::compiler
