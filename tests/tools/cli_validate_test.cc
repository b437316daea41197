// edgefold validate as a user runs it on the host, on the digits CNN of examples/digits and a QDQ
// golden: outputs against the host run and against PyTorch's / ONNX Runtime's outputs, the
// per-layer table, a failing verdict when the expected outputs disagree, and bad input (missing
// file, wrong shape, corrupt .efb, missing target program) as errors naming the file or field.
// The emulated targets run in the cross stage (scripts/cross-test.sh).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "npy.h"
#include "testing/run_cli.h"

namespace edgefold::tools {
namespace {

using Result = testing::CliResult;

const std::string kDigitsDir = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/";
const std::string kDigits = kDigitsDir + "digits_cnn.onnx";
const std::string kImages = kDigitsDir + "digits_test_x.npy";
const std::string kLogits = kDigitsDir + "digits_test_logits_pytorch.npy";

Result Cli(const std::string& args) { return testing::RunCli(EDGEFOLD_CLI, args); }

bool Contains(const Result& r, const std::string& s) {
  return r.output.find(s) != std::string::npos;
}

class CliValidate : public testing::ScratchDirTest {
 protected:
  CliValidate() : ScratchDirTest("edgefold_cli_validate") {}
  void SetUp() override {
    ScratchDirTest::SetUp();
    Result c = Cli("compile " + kDigits + " -o " + Path("d.efb"));
    ASSERT_EQ(c.exit_code, 0) << c.output;
  }
  std::string ReadText(const std::string& path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
};

TEST_F(CliValidate, HostAgainstPyTorch) {
  Result r = Cli("validate " + Path("d.efb") + " --inputs " + kImages + " --expected " + kLogits +
                 " --json " + Path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "target host (")) << r.output;
  EXPECT_TRUE(Contains(r, "450 run(s)")) << r.output;
  EXPECT_TRUE(Contains(r, "PASS")) << r.output;
  const std::string json = ReadText(Path("r.json"));
  EXPECT_NE(json.find("\"pass\": true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"top1_vs_expected\": 1,"), std::string::npos) << json;
}

TEST_F(CliValidate, PerLayerTable) {
  Result r = Cli("validate " + Path("d.efb") + " -i " + kImages + " --per-layer");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "per layer, target against host (8 layers)")) << r.output;
  EXPECT_TRUE(Contains(r, "/features/features.7/Conv")) << r.output;
}

// Expected outputs whose rows are shifted by one sample: the top-1 agreement collapses and the
// verdict fails (exit 1), while the target still agrees with the host.
TEST_F(CliValidate, DisagreeingExpectedOutputsFail) {
  NpyArray y;
  std::string error;
  ASSERT_TRUE(ReadNpy(kLogits, &y, &error)) << error;
  const size_t row = static_cast<size_t>(y.shape.back());
  std::vector<float> shifted(y.f32.begin() + static_cast<long>(row), y.f32.end());
  shifted.insert(shifted.end(), y.f32.begin(), y.f32.begin() + static_cast<long>(row));
  ASSERT_TRUE(
      WriteNpyFloat32(Path("shifted.npy"), shifted.data(), shifted.size(), y.shape, &error));
  Result r =
      Cli("validate " + Path("d.efb") + " -i " + kImages + " --expected " + Path("shifted.npy"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "FAIL")) << r.output;
  EXPECT_TRUE(Contains(r, "100.00%")) << r.output;  // against the host
}

// A QDQ golden (PyTorch's PTQ export) against ONNX Runtime: within one output step (its scale in
// MANIFEST.json, 0.042) on >= 99 % of the values, top-1 >= 99 %.
TEST_F(CliValidate, QdqGoldenWithinOneStepOfOnnxRuntime) {
  const std::string qdq = std::string(EDGEFOLD_QDQ_DATA_DIR) + "/torch_ptq_cnn";
  Result c = Cli("compile " + qdq + ".onnx -o " + Path("q.efb"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  Result r = Cli("validate " + Path("q.efb") + " -i " + qdq + "_input.npy --expected " + qdq +
                 "_ort.npy --tolerance 0.04205");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "200 run(s)")) << r.output;
  EXPECT_TRUE(Contains(r, "within 0.04205")) << r.output;
}

TEST_F(CliValidate, BadInputNamesTheFileOrField) {
  Result r = Cli("validate " + Path("d.efb"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r, "no --inputs")) << r.output;
  r = Cli("validate " + Path("d.efb") + " -i " + Path("missing.npy"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "missing.npy")) << r.output;
  r = Cli("validate " + Path("d.efb") + " -i " + kLogits);  // [450, 10], the model wants images
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "input 0 'input'") || Contains(r, "input 0 '")) << r.output;
  EXPECT_TRUE(Contains(r, "[450, 10]")) << r.output;
  r = Cli("validate " + Path("d.efb") + " -i " + kImages + " --expected " + kImages);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "output 0 'logits'")) << r.output;
  std::ofstream(Path("corrupt.efb"), std::ios::binary) << "not a model at all, just text";
  r = Cli("validate " + Path("corrupt.efb") + " -i " + kImages);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "corrupt.efb")) << r.output;
  r = Cli("validate " + Path("d.efb") + " -i " + kImages + " --target riscv");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r, "unknown --target 'riscv'")) << r.output;
  r = Cli("validate " + Path("d.efb") + " -i " + kImages + " --target m4 --target-build " +
          Path("nowhere"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "nowhere/bin/edgefold_validate.elf is missing")) << r.output;
  EXPECT_TRUE(Contains(r, "targets/arm-none-eabi-cortex-m4.cmake")) << r.output;
}

// Every emulated target, the Cortex-M55 (mps3-an547) too, in the errors and the help of
// validate and inspect; a missing cross build names that target's toolchain and directory.
TEST_F(CliValidate, EveryTargetInErrorsAndHelp) {
  Result r = Cli("validate " + Path("d.efb") + " -i " + kImages + " --target m9");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r, "unknown --target 'm9' (host, aarch64, armv7, m4, m7, m55)")) << r.output;
  EXPECT_TRUE(Contains(r, "--target host|aarch64|armv7|m4|m7|m55")) << r.output;
  EXPECT_TRUE(Contains(r, "mps3-an547")) << r.output;
  r = Cli("validate " + Path("d.efb") + " -i " + kImages + " --target m55 --target-build " +
          Path("nowhere"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "no validation program for --target m55")) << r.output;
  EXPECT_TRUE(Contains(r, "-B build-m55")) << r.output;
  EXPECT_TRUE(Contains(r, "targets/arm-none-eabi-cortex-m55.cmake")) << r.output;
  r = Cli("inspect " + Path("d.efb") + " --target m55 --target-build " + Path("nowhere"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "--target m55: " + Path("nowhere") + " holds no Ninja build"))
      << r.output;
  EXPECT_TRUE(Contains(r, "targets/arm-none-eabi-cortex-m55.cmake")) << r.output;
  r = Cli("inspect " + Path("d.efb") + " --target aarch64");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "bare-metal targets (m4, m7, m55)")) << r.output;
  r = Cli("inspect " + Path("d.efb") + " --target m9");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "unknown --target 'm9' (m4, m7, m55)")) << r.output;
  r = Cli("inspect --help");
  EXPECT_TRUE(Contains(r, "--target m4|m7|m55")) << r.output;
}

}  // namespace
}  // namespace edgefold::tools
