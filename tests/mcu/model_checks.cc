// The tiny model (conv + relu, global pool, reshape, gemm), embedded with `edgefold export-c`,
// run from read-only memory with a static arena and a resolver trimmed to its ops.
#include <cstdio>
#include <cstring>

#include "edgefold/interpreter.h"
#include "harness.h"
#include "tiny_model_data.h"
#include "tiny_model_io.h"

namespace edgefold::mcu_test {
namespace {

alignas(64) unsigned char g_arena[TINY_ARENA_BYTES + 64];

void ArenaErrors(Harness& h, const Options& options) {
  Interpreter* interp = nullptr;
  h.Check(Interpreter::Create(tiny_model, TINY_MODEL_BYTES, g_arena, 256, options, &interp) ==
              Status::kArenaTooSmall,
          "a 256-byte arena is too small");
  h.Check(Interpreter::Create(tiny_model, TINY_MODEL_BYTES, g_arena + 4, TINY_ARENA_BYTES, options,
                              &interp) == Status::kMisalignedArena,
          "a misaligned arena is rejected");
  OpResolver empty;
  Options no_ops = options;
  no_ops.resolver = &empty;
  h.Check(Interpreter::Create(tiny_model, TINY_MODEL_BYTES, g_arena, TINY_ARENA_BYTES, no_ops,
                              &interp) == Status::kUnsupportedOp,
          "an empty resolver reports the op");
}

}  // namespace

void RunModelChecks(Harness& h) {
  OpResolver resolver;
  TINY_REGISTER_OPS(resolver);
  Options options;
  options.resolver = &resolver;
  size_t needed_bytes = 0;
  h.Check(RequiredArenaBytes(tiny_model, TINY_MODEL_BYTES, &needed_bytes, options) == Status::kOk &&
              needed_bytes <= TINY_ARENA_BYTES,
          "RequiredArenaBytes fits TINY_ARENA_BYTES");
  std::printf("tiny model: %u bytes, arena %u needed here, %u exported\n",
              static_cast<unsigned>(TINY_MODEL_BYTES), static_cast<unsigned>(needed_bytes),
              static_cast<unsigned>(TINY_ARENA_BYTES));
  ArenaErrors(h, options);

  Interpreter* interp = nullptr;
  const Status created = Interpreter::Create(tiny_model, TINY_MODEL_BYTES, g_arena,
                                             TINY_ARENA_BYTES, options, &interp);
  h.Check(created == Status::kOk, "Create the tiny model");
  if (created != Status::kOk) return;
  h.Check(interp->SetInput(0, tiny_x, sizeof(tiny_x) / sizeof(float)) == Status::kOk, "SetInput");
  h.Check(interp->SetInput(0, tiny_x, 3) == Status::kShapeMismatch, "SetInput checks the count");
  for (int run = 0; run < 2; ++run) {  // a second Invoke gives the same result
    h.Check(interp->Invoke() == Status::kOk, "Invoke");
    const TensorView y = interp->output(0);
    h.Check(y.elems == sizeof(tiny_y_ref) / sizeof(float), "output element count");
    h.Close(tiny_y_ref, y.data, y.elems, 1e-5f, 1e-4f, "tiny model output vs double reference");
  }
  std::printf("tiny model ran on kernel table %s\n", interp->kernel_isa_name());
}

}  // namespace edgefold::mcu_test
