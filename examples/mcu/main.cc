// Bare-metal edgefold example: one model from flash (a header written by `edgefold export-c`),
// a static arena, a resolver with only the model's ops, one inference on a fixed input, and
// the class scores printed over semihosting:
//   score[i] = 0x3e4ccccd (0.200000)      exact float bits, then a rounded decimal
// The build defines EDGEFOLD_EXAMPLE_MODEL (the export-c --name) and includes the generated
// headers through EDGEFOLD_MODEL_HEADER / EDGEFOLD_INPUT_HEADER.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "edgefold/interpreter.h"
#include EDGEFOLD_MODEL_HEADER
#include EDGEFOLD_INPUT_HEADER

#define EF_CAT2(a, b) a##b
#define EF_CAT(a, b) EF_CAT2(a, b)
#define EF_STR2(a) #a
#define EF_STR(a) EF_STR2(a)
#define EF_MODEL EF_CAT(EDGEFOLD_EXAMPLE_MODEL, _model)
#define EF_INPUT EF_CAT(EDGEFOLD_EXAMPLE_MODEL, _input_bits)

namespace {

alignas(64) unsigned char g_arena[EF_CAT(EDGEFOLD_EXAMPLE_NAME_UPPER, _ARENA_BYTES)];
float g_input[sizeof(EF_INPUT) / sizeof(EF_INPUT[0])];

// Prints v without printf's float support (not linked: it costs ~10 KB of flash).
void PrintScore(size_t i, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const bool negative = v < 0;
  const unsigned long micro = static_cast<unsigned long>((negative ? -v : v) * 1e6f + 0.5f);
  std::printf("score[%u] = 0x%08lx (%s%lu.%06lu)\n", static_cast<unsigned>(i),
              static_cast<unsigned long>(bits), negative ? "-" : "", micro / 1000000,
              micro % 1000000);
}

}  // namespace

// argv[1] (qemu -append "N"): run N inferences; instruction counts take the difference.
int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1;
  edgefold::OpResolver resolver;
  EF_CAT(EDGEFOLD_EXAMPLE_NAME_UPPER, _REGISTER_OPS)(resolver);
  edgefold::Options options;
  options.resolver = &resolver;
  edgefold::Interpreter* interp = nullptr;
  edgefold::Status st = edgefold::Interpreter::Create(EF_MODEL, sizeof(EF_MODEL), g_arena,
                                                      sizeof(g_arena), options, &interp);
  if (st != edgefold::Status::kOk) {
    std::printf("Create failed: %s\n", edgefold::StatusName(st));
    return 1;
  }
  for (size_t i = 0; i < sizeof(g_input) / sizeof(float); ++i) {
    const uint32_t bits = static_cast<uint32_t>(EF_INPUT[i]);
    std::memcpy(&g_input[i], &bits, sizeof(float));
  }
  st = interp->SetInput(0, g_input, sizeof(g_input) / sizeof(float));
  for (int r = 0; r < runs && st == edgefold::Status::kOk; ++r) st = interp->Invoke();
  if (st != edgefold::Status::kOk) {
    std::printf("inference failed: %s\n", edgefold::StatusName(st));
    return 1;
  }
  const edgefold::TensorView y = interp->output(0);
  std::printf("model %s: %u bytes, arena %u of %u bytes, kernels %s\n",
              EF_STR(EDGEFOLD_EXAMPLE_MODEL), static_cast<unsigned>(sizeof(EF_MODEL)),
              static_cast<unsigned>(interp->arena_used_bytes()),
              static_cast<unsigned>(sizeof(g_arena)), interp->kernel_isa_name());
  for (size_t i = 0; i < y.elems; ++i) PrintScore(i, y.data[i]);
  return 0;
}
