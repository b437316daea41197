// A host tool using both installed libraries: compiles MODEL.onnx with edgefold::compiler,
// runs the result with edgefold::runtime on an input of ones, prints the output checksum.
// usage: compile_and_run MODEL.onnx
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "edgefold/interpreter.h"
#include "edgefold_compiler/compiler.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const edgefold::compiler::CompileResult r =
      edgefold::compiler::CompileFile(argv[1], edgefold::compiler::CompileOptions());
  if (!r.ok) {
    std::fprintf(stderr, "compile_and_run: %s\n", r.error.c_str());
    return 1;
  }
  // The runtime reads weights in place: the model must start at a 64-byte boundary.
  auto* model = static_cast<uint8_t*>(std::aligned_alloc(64, (r.model.size() + 63) / 64 * 64));
  std::memcpy(model, r.model.data(), r.model.size());
  size_t arena_bytes = 0;
  edgefold::Status s = edgefold::RequiredArenaBytes(model, r.model.size(), &arena_bytes);
  void* arena = std::aligned_alloc(64, (arena_bytes + 63) / 64 * 64);
  edgefold::Interpreter* it = nullptr;
  if (s == edgefold::Status::kOk) {
    s = edgefold::Interpreter::Create(model, r.model.size(), arena, arena_bytes,
                                      edgefold::Options(), &it);
  }
  if (s != edgefold::Status::kOk) {
    std::fprintf(stderr, "compile_and_run: %s\n", edgefold::StatusName(s));
    return 1;
  }
  const edgefold::TensorView x = it->input(0);
  for (size_t i = 0; i < x.elems; ++i) x.data[i] = 1.0f;
  s = it->Invoke();
  const edgefold::TensorView y = it->output(0);
  double sum = 0;
  for (size_t i = 0; i < y.elems; ++i) sum += y.data[i];
  std::printf("checksum %.5f over %zu outputs\n", sum, y.elems);
  std::free(arena);
  std::free(model);
  return s == edgefold::Status::kOk ? 0 : 1;
}
