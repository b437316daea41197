#include "interpreter/interpreter_state.h"

namespace edgefold::internal {
namespace {
constexpr size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }
}  // namespace

ArenaLayout ComputeArenaLayout(const ModelSummary& s) {
  ArenaLayout l;
  l.state_offset = AlignUp(s.planned_arena_bytes, kArenaAlignment);
  l.tensors_offset = AlignUp(l.state_offset + sizeof(Interpreter::State), alignof(TensorInfo));
  l.ops_offset = AlignUp(l.tensors_offset + s.num_tensors * sizeof(TensorInfo), alignof(OpDesc));
  l.op_kernels_offset = AlignUp(l.ops_offset + s.num_ops * sizeof(OpDesc), alignof(void*));
  l.handle_offset = AlignUp(l.op_kernels_offset + s.num_ops * sizeof(void*), alignof(Interpreter));
  l.total_bytes = AlignUp(l.handle_offset + sizeof(Interpreter), kArenaAlignment);
  return l;
}

const OpResolver& DefaultOpResolver() {
  static const OpResolver resolver = [] {
    OpResolver r;
    r.AddAll();
    return r;
  }();
  return resolver;
}

}  // namespace edgefold::internal
