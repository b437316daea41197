#include "plan/plan_model.h"

#include <algorithm>

#include "plan/arena_planner.h"

namespace edgefold::compiler {

void PlanArena(LoweredModel* model) {
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
  ArenaPlanner planner;
  std::vector<int> tensor_buffer(count, -1), scratch_buffer(steps, -1);
  for (size_t t = 0; t < count; ++t) {
    if (model->tensors[t].is_const) continue;
    const int begin = first[t] < 0 ? 0 : first[t];
    const int end = std::max(final_use[t] < 0 ? begin : final_use[t], begin);
    tensor_buffer[t] = planner.AddBuffer(model->tensors[t].bytes, begin, end);
  }
  for (int step = 0; step < steps; ++step)
    if (model->ops[step].scratch_bytes > 0)
      scratch_buffer[step] = planner.AddBuffer(model->ops[step].scratch_bytes, step, step);
  planner.PlanBestOf();   // a fused expansion's band scratch beside the tensors it spans can defeat size order alone
  for (size_t t = 0; t < count; ++t)
    if (tensor_buffer[t] >= 0) model->tensors[t].arena_offset = static_cast<int64_t>(planner.offset(tensor_buffer[t]));
  for (int step = 0; step < steps; ++step)
    model->ops[step].scratch_offset =
        scratch_buffer[step] >= 0 ? static_cast<int64_t>(planner.offset(scratch_buffer[step])) : -1;
  model->arena_bytes = planner.arena_bytes();
  model->arena_lower_bound = planner.lower_bound();
}

}  // namespace edgefold::compiler
