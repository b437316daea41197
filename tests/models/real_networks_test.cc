// Real networks: compile each exported PyTorch model, run it with the runtime and compare
// with PyTorch's output within 1e-4 relative to the output's scale (max |y_torch|, ≥ 1).
// Prints one table row per model: BN nodes, folded backward/forward, kept affine, max
// error, arena bytes vs lower bound, weight bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "edgefold_compiler/compiler.h"
#include "npy.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {

constexpr double kRelTolerance = 1e-4;

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

tools::NpyArray Load(const std::string& path) {
  tools::NpyArray a;
  std::string error;
  if (!tools::ReadNpy(path, &a, &error)) ADD_FAILURE() << error;
  return a;
}

void PrintRow(const std::string& name, const CompileReport& r, double err) {
  std::printf("| %-20s | %3d | %3d | %3d | %3d | %9.2e | %10llu / %-10llu | %10llu |\n",
              name.c_str(), r.batchnorm_found, r.batchnorm_folded_backward,
              r.batchnorm_folded_forward, r.batchnorm_kept_affine, err,
              static_cast<unsigned long long>(r.arena_bytes),
              static_cast<unsigned long long>(r.arena_lower_bound),
              static_cast<unsigned long long>(r.weight_bytes));
  std::fflush(stdout);
}

// Compiles dir/name.onnx, runs dir/name.input.npy and compares with dir/name.output.npy.
void CheckModel(const std::string& dir, const std::string& name) {
  const std::string base = dir + "/" + name;
  const CompileResult r = CompileFile(base + ".onnx", CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const tools::NpyArray in = Load(base + ".input.npy"), want = Load(base + ".output.npy");
  const std::vector<float> got = testing::RunEfb(r.model, {in.f32}).at(0);
  ASSERT_EQ(got.size(), want.f32.size());
  double scale = 1, err = 0;
  for (float v : want.f32) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  for (size_t i = 0; i < got.size(); ++i)
    err = std::max(err, std::fabs(static_cast<double>(got[i]) - want.f32[i]));
  PrintRow(name, r.report, err / scale);
  EXPECT_LE(err / scale, kRelTolerance) << name;
  EXPECT_GE(r.report.arena_bytes, r.report.arena_lower_bound);
  // The greedy planner may land above the lower bound; 25 % above it means something broke.
  EXPECT_LE(r.report.arena_bytes, r.report.arena_lower_bound * 5 / 4)
      << "arena far above the lower bound";
  EXPECT_TRUE(r.report.verified || r.report.batchnorm_found == 0);
}

class SmallModels : public ::testing::TestWithParam<const char*> {};

TEST_P(SmallModels, MatchPyTorch) { CheckModel(EDGEFOLD_MODELS_DATA_DIR, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Committed, SmallModels,
                         ::testing::Values("resnet8", "ds_cnn", "mobilenet_v1_025",
                                           "fc_autoencoder", "mlp_bn1d", "bn_positions"));

// torchvision classifiers at 224×224: ~400 MB of ONNX, generated on demand (needs
// python3-torchvision) and run only with EDGEFOLD_LARGE_MODELS=1.
class LargeModels : public ::testing::TestWithParam<const char*> {};

TEST_P(LargeModels, MatchPyTorch) {
  const char* opt_in = std::getenv("EDGEFOLD_LARGE_MODELS");
  if (opt_in == nullptr || std::string(opt_in) != "1")
    GTEST_SKIP() << "set EDGEFOLD_LARGE_MODELS=1";
  const std::string dir = EDGEFOLD_MODELS_LARGE_DIR;
  if (!Exists(dir + "/" + GetParam() + ".onnx")) {
    const std::string cmd = std::string("/usr/bin/python3 ") + EDGEFOLD_MODELS_EXPORT_SCRIPT + " " +
                            GetParam() + " " + dir + " > " + dir + ".log 2>&1";
    ASSERT_EQ(std::system(("mkdir -p " + dir + " && " + cmd).c_str()), 0)
        << "export failed: see " << dir << ".log";
  }
  CheckModel(dir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Torchvision, LargeModels,
                         ::testing::Values("resnet18", "resnet34", "resnet50", "mobilenet_v2",
                                           "mobilenet_v3_small", "mobilenet_v3_large",
                                           "shufflenet_v2_x1_0", "efficientnet_b0", "mnasnet1_0",
                                           "regnet_y_400mf", "densenet121", "squeezenet1_1"));

}  // namespace
}  // namespace edgefold::compiler
