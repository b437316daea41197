// The runtime's shared vocabulary: the names every layer uses (element types, operator kinds,
// the caller's log and thread callbacks, the arena's alignment and the largest rank). This is
// the ground floor: it includes only the standard library and op_list.h, the bare list of
// operator kinds that itself includes nothing, so any file may include it without pulling in
// the interpreter or the resolver.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/op_list.h"

namespace edgefold {

constexpr size_t kArenaAlignment = 64;
constexpr int kMaxRank = 6;

// Element type of a tensor (the schema's DType, same values).
enum class DType : uint8_t { kFloat32 = 0, kInt32 = 1, kInt8 = 2 };
const char* DTypeName(DType d);  // "float32", "int32", "int8"

// Operator kinds, numbered as OpType in schemas/model.fbs (checked at compile time in
// model/model_reader.cc).
enum class OpKind : uint16_t {
#define EDGEFOLD_OP_KIND(op) k##op,
  EDGEFOLD_FOR_EACH_OP(EDGEFOLD_OP_KIND)
#undef EDGEFOLD_OP_KIND
      kCount
};

// Receives one formatted message per error (null-terminated). Called only on failure paths.
using LogFn = void (*)(void* user, const char* message);

// Threads, supplied by the caller (edgefold/thread_pool.h has one for hosted builds; firmware
// plugs its RTOS's): parallel_for(user, tasks, run, ctx) must call run(ctx, i) exactly once for
// every i in [0, tasks), in any order and on any threads, and return when all have returned.
// The runtime calls it from Invoke only, never re-entrantly, and allocates nothing for it.
// Each task runs kernels with their buffers on the stack (the depthwise convs' zero-bordered
// planes are most of it): give the threads at least 160 KiB (x86 AVX-512 table; AVX2 and
// SSE 96 KiB). Measured as the smallest `ulimit -s` under which `edgefold run` ran every
// network of bench/ on one thread: 144 KiB with AVX-512, 88 with AVX2, 96 with SSE 4.2.
using ParallelForFn = void (*)(void* user, size_t tasks, void (*run)(void* ctx, size_t task),
                               void* ctx);

}  // namespace edgefold
