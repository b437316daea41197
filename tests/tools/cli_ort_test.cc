// The native ONNX Runtime peer as a user runs it: `edgefold diff --ort` takes ONNX Runtime's
// outputs as the reference, `edgefold bench --ort` times ONNX Runtime in the same process on the
// same inputs, on the digits CNN of examples/digits. Needs ONNX Runtime's library
// ($EDGEFOLD_ORT_LIB, else the onnxruntime-node package bench/ort_lib.sh installs under
// build-bench/node); skipped with a message when it is absent. Without it, both commands must
// say so and fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

#include "testing/run_cli.h"

namespace edgefold::tools {
namespace {

using Result = testing::CliResult;

const std::string kDigits = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_cnn.onnx";
const std::string kImages = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_test_x.npy";

Result Cli(const std::string& args) { return testing::RunCli(EDGEFOLD_CLI, args); }

bool Contains(const Result& r, const std::string& s) {
  return r.output.find(s) != std::string::npos;
}

// The library the tests use, "" when none is installed.
std::string OrtLibrary() {
  const char* env = std::getenv("EDGEFOLD_ORT_LIB");
  std::string path = env != nullptr && *env ? env : EDGEFOLD_ORT_LIB_DEFAULT;
  return !path.empty() && std::ifstream(path).good() ? path : "";
}

// The number after `key` in the output (`key` ends with '=' or a space), NaN when absent.
double Number(const Result& r, const std::string& key) {
  const size_t at = r.output.find(key);
  return at == std::string::npos ? std::nan("") : std::atof(r.output.c_str() + at + key.size());
}

class CliOrt : public testing::ScratchDirTest {
 protected:
  CliOrt() : ScratchDirTest("edgefold_cli_ort") {}
  void SetUp() override {
    ScratchDirTest::SetUp();
    Result c = Cli("compile " + kDigits + " -o " + Path("d.efb"));
    ASSERT_EQ(c.exit_code, 0) << c.output;
  }
};

TEST_F(CliOrt, DiffAgainstOnnxRuntimeComparesTheGraphOutput) {
  const std::string lib = OrtLibrary();
  if (lib.empty())
    GTEST_SKIP() << "ONNX Runtime not installed (export EDGEFOLD_ORT_LIB=$(bench/ort_lib.sh))";
  Result r =
      Cli("diff " + kDigits + " " + Path("d.efb") + " -i " + kImages + " --ort --ort-lib " + lib);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "reference: ONNX Runtime ")) << r.output;
  EXPECT_TRUE(Contains(r, "450 run(s), 1 layers compared")) << r.output;
  // The float model agrees with ONNX Runtime to float rounding: SQNR far above 60 dB.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.output, m, std::regex(R"(\n  \S+ +Gemm +\S+ +(\S+) +(\S+) +(\S+))")))
      << r.output;
  EXPECT_LT(std::atof(m[1].str().c_str()), 1e-3) << r.output;
  EXPECT_GT(std::atof(m[3].str().c_str()), 60.0) << r.output;
}

TEST_F(CliOrt, DiffOfAnotherModelShowsTheError) {
  const std::string lib = OrtLibrary();
  if (lib.empty())
    GTEST_SKIP() << "ONNX Runtime not installed (export EDGEFOLD_ORT_LIB=$(bench/ort_lib.sh))";
  // A .efb quantized to int8 against ONNX Runtime's float outputs: an error well above float
  // rounding, but the same classes' scale (SQNR between 10 and 60 dB).
  Result q = Cli("compile " + kDigits + " --quantize int8 --calibrate " + kImages + " -o " +
                 Path("q.efb"));
  ASSERT_EQ(q.exit_code, 0) << q.output;
  Result r =
      Cli("diff " + kDigits + " " + Path("q.efb") + " -i " + kImages + " --ort --ort-lib " + lib);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m,
                                std::regex(R"(\n  \S+ +\S+ \(int8\) +\S+ +(\S+) +(\S+) +(\S+))")))
      << r.output;
  EXPECT_GT(std::atof(m[1].str().c_str()), 1e-3) << r.output;
  EXPECT_GT(std::atof(m[3].str().c_str()), 10.0) << r.output;
  EXPECT_LT(std::atof(m[3].str().c_str()), 60.0) << r.output;
}

TEST_F(CliOrt, BenchTimesOnnxRuntimeOnTheSameInputs) {
  const std::string lib = OrtLibrary();
  if (lib.empty())
    GTEST_SKIP() << "ONNX Runtime not installed (export EDGEFOLD_ORT_LIB=$(bench/ort_lib.sh))";
  Result r = Cli("bench " + Path("d.efb") + " --ort " + kDigits + " --ort-lib " + lib +
                 " --runs 5 --warmup 1 --rounds 3 --ort-output " + Path("ort.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "round 3: edgefold ")) << r.output;
  const double ef = Number(r, "\nmedian_ms="), ort = Number(r, "ort_median_ms=");
  ASSERT_GT(ef, 0) << r.output;
  ASSERT_GT(ort, 0) << r.output;
  // ef_ort is the ratio of the unrounded medians; the printed ones are rounded to 1e-4 ms.
  EXPECT_NEAR(Number(r, "ef_ort="), ef / ort, ef / ort * (1e-4 / ef + 1e-4 / ort) + 1e-4)
      << r.output;
  EXPECT_LT(Number(r, "max_abs_diff="), 1e-3) << r.output;
  EXPECT_TRUE(std::ifstream(Path("ort.npy")).good());
}

TEST_F(CliOrt, WithoutTheLibraryBothCommandsSaySoAndFail) {
  const std::string missing = "--ort-lib " + Path("no/libonnxruntime.so.1");
  Result d = Cli("diff " + kDigits + " " + Path("d.efb") + " -i " + kImages + " --ort " + missing);
  EXPECT_NE(d.exit_code, 0) << d.output;
  EXPECT_TRUE(Contains(d, "ONNX Runtime not found")) << d.output;
  Result b = Cli("bench " + Path("d.efb") + " --ort " + kDigits + " " + missing);
  EXPECT_NE(b.exit_code, 0) << b.output;
  EXPECT_TRUE(Contains(b, "ONNX Runtime not found")) << b.output;
}

TEST_F(CliOrt, BenchWithOtherInputsSaysWhichFile) {
  Result b = Cli("bench " + Path("d.efb") + " -i " + kImages + " -i " + kImages);
  EXPECT_NE(b.exit_code, 0) << b.output;
  EXPECT_TRUE(Contains(b, "the model has 1 input(s), got 2 -i file(s)")) << b.output;
}

}  // namespace
}  // namespace edgefold::tools
