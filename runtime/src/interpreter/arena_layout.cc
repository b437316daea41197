#include <cstdint>
#include "interpreter/interpreter_state.h"

namespace edgefold::internal {
namespace {

// Saturating size arithmetic: on a 32-bit target a hostile model's planned arena plus the
// per-tensor and per-op records can exceed SIZE_MAX; saturate instead of wrapping so the
// total can never come out smaller than what Create writes.
constexpr size_t kSaturated = SIZE_MAX;
size_t Add(size_t a, size_t b) { return (a > kSaturated - b) ? kSaturated : a + b; }
size_t Mul(size_t a, size_t b) { return (b != 0 && a > kSaturated / b) ? kSaturated : a * b; }
size_t AlignUp(size_t n, size_t a) { return (n > kSaturated - (a - 1)) ? kSaturated : (n + a - 1) / a * a; }

}  // namespace

ArenaLayout ComputeArenaLayout(const ModelSummary& s) {
  ArenaLayout l;
  l.state_offset = AlignUp(s.planned_arena_bytes, kArenaAlignment);
  l.tensors_offset = AlignUp(Add(l.state_offset, sizeof(Interpreter::State)), alignof(TensorInfo));
  l.ops_offset = AlignUp(Add(l.tensors_offset, Mul(s.num_tensors, sizeof(TensorInfo))), alignof(OpDesc));
  l.op_kernels_offset = AlignUp(Add(l.ops_offset, Mul(s.num_ops, sizeof(OpDesc))), alignof(void*));
  l.handle_offset = AlignUp(Add(l.op_kernels_offset, Mul(s.num_ops, sizeof(void*))), alignof(Interpreter));
  l.total_bytes = AlignUp(Add(l.handle_offset, sizeof(Interpreter)), kArenaAlignment);
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
