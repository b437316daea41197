// Runs a .efb model N times on a fixed input (every element 0.25) with the runtime alone (no
// compiler, no CLI), for instruction counts under QEMU (bench/insn/run.sh): per inference =
// count(N = 2) − count(N = 1), so loading and Create cancel out. With STOP, the second run ends
// the process right after op STOP (−1: before the second run starts), so that
// count(STOP = k) − count(STOP = k − 1) is op k's share (bench/insn/per_op.sh).
// Usage: efb_runner MODEL.efb RUNS [STOP]
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <vector>

#include "edgefold/interpreter.h"

namespace {
long g_stop = -2;       // −2: no stop
bool g_second = false;  // inside the second run
void OnOpEnd(void*, size_t op) {
  if (g_second && static_cast<long>(op) == g_stop) _exit(0);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL.efb RUNS [STOP]\n", argv[0]);
    return 2;
  }
  std::FILE* f = std::fopen(argv[1], "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  std::vector<unsigned char> storage(static_cast<size_t>(size) + 64);
  unsigned char* model =
      storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  const bool read = std::fread(model, 1, static_cast<size_t>(size), f) == static_cast<size_t>(size);
  std::fclose(f);
  size_t arena_bytes = 0;
  if (!read || edgefold::RequiredArenaBytes(model, static_cast<size_t>(size), &arena_bytes) !=
                   edgefold::Status::kOk) {
    std::fprintf(stderr, "%s: not a model this runtime loads\n", argv[1]);
    return 1;
  }
  std::vector<unsigned char> arena_storage(arena_bytes + 64);
  unsigned char* arena =
      arena_storage.data() + (64 - reinterpret_cast<uintptr_t>(arena_storage.data()) % 64) % 64;
  edgefold::Options options;
  if (argc == 4) {
    g_stop = std::atol(argv[3]);
    options.on_op_end = OnOpEnd;
  }
  edgefold::Interpreter* interp = nullptr;
  edgefold::Status st = edgefold::Interpreter::Create(model, static_cast<size_t>(size), arena,
                                                      arena_bytes, options, &interp);
  if (st != edgefold::Status::kOk) {
    std::fprintf(stderr, "Create: %s\n", edgefold::StatusName(st));
    return 1;
  }
  for (size_t i = 0; i < interp->num_inputs(); ++i) {
    const edgefold::TensorView x = interp->input(i);
    for (size_t e = 0; e < x.elems; ++e) x.data[e] = 0.25f;
  }
  const int runs = std::atoi(argv[2]);
  for (int r = 0; r < runs && st == edgefold::Status::kOk; ++r) {
    g_second = r == 1;
    if (g_second && g_stop == -1) _exit(0);
    st = interp->Invoke();
  }
  std::printf("kernels %s, status %s, y[0] = %g\n", interp->kernel_isa_name(),
              edgefold::StatusName(st), static_cast<double>(interp->output(0).data[0]));
  return st == edgefold::Status::kOk ? 0 : 1;
}
