#include <cstdint>

#include "base/size_math.h"
#include "interpreter/interpreter_state.h"

namespace edgefold::internal {

// Saturating: the total can never come out smaller than what Create writes.
ArenaLayout ComputeArenaLayout(const ModelSummary& s) {
  ArenaLayout l;
  l.state_offset = RoundUpSat(s.planned_arena_bytes, kArenaAlignment);
  l.tensors_offset =
      RoundUpSat(AddSat(l.state_offset, sizeof(Interpreter::State)), alignof(TensorInfo));
  l.ops_offset = RoundUpSat(AddSat(l.tensors_offset, MulSat(s.num_tensors, sizeof(TensorInfo))),
                            alignof(OpDesc));
  l.op_kernels_offset =
      RoundUpSat(AddSat(l.ops_offset, MulSat(s.num_ops, sizeof(OpDesc))), alignof(void*));
  l.handle_offset = RoundUpSat(AddSat(l.op_kernels_offset, MulSat(s.num_ops, sizeof(void*))),
                               alignof(Interpreter));
  l.total_bytes = RoundUpSat(AddSat(l.handle_offset, sizeof(Interpreter)), kArenaAlignment);
  return l;
}

}  // namespace edgefold::internal
