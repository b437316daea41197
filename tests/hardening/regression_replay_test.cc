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
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
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
    if (Interpreter::Create(model.data(), bytes.size(), arena.data(), need, Options(), &interp) !=
        Status::kOk)
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
      const size_t held = a.dtype == tools::NpyDType::kFloat32 ? a.f32.size()
                          : a.dtype == tools::NpyDType::kInt64 ? a.i64.size()
                                                               : a.s8.size();
      EXPECT_EQ(a.elems(), held);
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
}

// Compiler fuzzer finds. onnx-conv-bias-shorter-than-out-channels.onnx (3 bias values for 4
// output channels) used to reach the writer, which read past the bias; it is now rejected
// by name before any pass uses the bias.
TEST(Regression, OnnxInputsNeverCrash) {
  for (const std::string& name : Files("onnx-")) {
    SCOPED_TRACE(name);
    compiler::CompileOptions options;
    options.verify = false;
    const compiler::CompileResult r =
        compiler::CompileFile(std::string(EDGEFOLD_REGRESSION_DIR) + "/" + name, options);
    if (!r.ok) EXPECT_FALSE(r.error.empty());
    if (name == "onnx-conv-bias-shorter-than-out-channels.onnx") {
      EXPECT_FALSE(r.ok);
      EXPECT_NE(r.error.find("3 values for 4 output channels"), std::string::npos) << r.error;
    }
  }
}

}  // namespace
}  // namespace edgefold::testing
