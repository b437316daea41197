// libFuzzer target: arbitrary bytes as a .efb model. Contract under test: every input gives a
// Status (never a crash, hang, out-of-bounds access or UB), and a model the loader accepts
// runs Invoke on zero inputs without tripping the sanitizers; a model with adaptable int8
// layers goes through Int8Adapter::Create and one Adapt as well.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "edgefold/int8_adapter.h"
#include "edgefold/interpreter.h"

namespace {

// Planned arenas above this are refused by the harness (not by the runtime): the fuzzer would
// otherwise spend its time in huge memsets, not in the loader.
constexpr size_t kMaxArenaBytes = size_t{1} << 20;

struct Aligned {
  explicit Aligned(size_t bytes)
      : p(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64))) {}
  ~Aligned() { std::free(p); }
  uint8_t* p;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Aligned model(size);
  if (size > 0) std::memcpy(model.p, data, size);
  size_t arena_bytes = 0;
  if (edgefold::RequiredArenaBytes(model.p, size, &arena_bytes) != edgefold::Status::kOk) return 0;
  if (arena_bytes > kMaxArenaBytes) return 0;
  Aligned arena(arena_bytes);
  std::memset(arena.p, 0, arena_bytes);  // zero inputs: planned tensors start as 0.0f
  edgefold::Interpreter* interp = nullptr;
  const edgefold::Status created = edgefold::Interpreter::Create(
      model.p, size, arena.p, arena_bytes, edgefold::Options(), &interp);
  if (created != edgefold::Status::kOk) return 0;
  (void)interp->Invoke();
  for (size_t i = 0; i < interp->num_outputs(); ++i) {
    const edgefold::TensorView y = interp->output(i);
    volatile float sink = 0;
    for (size_t e = 0; e < y.elems; ++e)  // outputs are readable (int8 ones through data_s8)
      sink = sink + (y.data != nullptr ? y.data[e] : static_cast<float>(y.data_s8[e]));
  }
  size_t adapter_bytes = 0;
  if (edgefold::RequiredInt8AdapterArenaBytes(model.p, size, &adapter_bytes) !=
          edgefold::Status::kOk ||
      adapter_bytes > kMaxArenaBytes)
    return 0;
  Aligned adapter_arena(adapter_bytes);
  std::memset(adapter_arena.p, 0, adapter_bytes);
  edgefold::Int8Adapter* adapter = nullptr;
  if (edgefold::Int8Adapter::Create(model.p, size, adapter_arena.p, adapter_bytes,
                                    edgefold::Options(), &adapter) == edgefold::Status::kOk)
    (void)adapter->Adapt();
  return 0;
}
