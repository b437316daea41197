// PlanBuffers (compiler.h): the public face of ArenaPlanner.
#include "edgefold_compiler/compiler.h"
#include "plan/arena_planner.h"

namespace edgefold::compiler {

BufferPlan PlanBuffers(const std::vector<BufferLifetime>& buffers) {
  ArenaPlanner planner;
  for (const BufferLifetime& b : buffers) planner.AddBuffer(b.bytes, b.first, b.last);
  planner.PlanBestOf();
  BufferPlan plan;
  for (size_t i = 0; i < buffers.size(); ++i)
    plan.offsets.push_back(planner.offset(static_cast<int>(i)));
  plan.arena_bytes = planner.arena_bytes();
  plan.lower_bound = planner.lower_bound();
  return plan;
}

}  // namespace edgefold::compiler
