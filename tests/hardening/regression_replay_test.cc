// Replays every input under tests/hardening/regressions/ the way the fuzzers run them
// (fuzz/fuzz_model_loader.cc, fuzz/fuzz_npy.cc): each must give a status or a parse error —
// never a crash; run under the `asan` preset, never a sanitizer report either.
// File names: model-<what>.efb → model loader; npy-<what>.npy → .npy reader;
// onnx-<what>.onnx → compiler (fuzz/fuzz_onnx_compile.cc).
#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "edgefold_compiler/compiler.h"
#include "npy.h"
#include "testing/efb_builder.h"

namespace edgefold::testing {
namespace {

std::vector<std::string> Files(const std::string& prefix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(EDGEFOLD_REGRESSION_DIR)) {
    while (dirent* e = readdir(d))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

std::vector<uint8_t> Read(const std::string& name) {
  std::ifstream f(std::string(EDGEFOLD_REGRESSION_DIR) + "/" + name, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(Regression, ModelInputsNeverCrash) {
  const std::vector<std::string> files = Files("model-");
  EXPECT_FALSE(files.empty()) << "no model regressions found in " << EDGEFOLD_REGRESSION_DIR;
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> bytes = Read(name);
    AlignedBuffer model(bytes);
    size_t need = 0;
    if (RequiredArenaBytes(model.data(), bytes.size(), &need) != Status::kOk) continue;
    if (need > (size_t{64} << 20)) continue;
    AlignedBuffer arena(need);
    std::memset(arena.data(), 0, need);
    Interpreter* interp = nullptr;
    if (Interpreter::Create(model.data(), bytes.size(), arena.data(), need, Options(), &interp) != Status::kOk)
      continue;
    EXPECT_EQ(interp->Invoke(), Status::kOk);
  }
}

TEST(Regression, NpyInputsNeverCrash) {
  for (const std::string& name : Files("npy-")) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> bytes = Read(name);
    tools::NpyArray a;
    std::string error;
    if (tools::ParseNpy(bytes.data(), bytes.size(), name, &a, &error)) {
      EXPECT_EQ(a.elems(), a.dtype == tools::NpyDType::kFloat32 ? a.f32.size() : a.i64.size());
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
}

// Fuzzer finds in the compiler (not hardening's code) that are still open: replaying them
// under ASan reports the overflow, so they are skipped by name until fixed. Delete the entry
// with the fix; the file stays as the regression test.
//   onnx-conv-bias-shorter-than-out-channels.onnx: Conv with 3 bias values for 4 output
//     channels passes lowering; PackWeights (write/efb_writer.cc) then copies 16 bytes from a
//     12-byte vector (heap-buffer-overflow read).
const char* const kOpenCompilerFinds[] = {"onnx-conv-bias-shorter-than-out-channels.onnx"};

TEST(Regression, OnnxInputsNeverCrash) {
  for (const std::string& name : Files("onnx-")) {
    SCOPED_TRACE(name);
    bool open = false;
    for (const char* known : kOpenCompilerFinds) open |= name == known;
    if (open) {
      std::printf("skipped (open compiler bug): %s\n", name.c_str());
      continue;
    }
    compiler::CompileOptions options;
    options.verify = false;
    const compiler::CompileResult r =
        compiler::CompileFile(std::string(EDGEFOLD_REGRESSION_DIR) + "/" + name, options);
    if (!r.ok) EXPECT_FALSE(r.error.empty());
  }
}

}  // namespace
}  // namespace edgefold::testing
