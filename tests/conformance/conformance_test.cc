// ONNX conformance: every case of selected_cases.txt (ONNX node tests, PyTorch-exported
// modules, our golden BatchNorm models) compiled by edgefold_compiler, run by the runtime,
// compared with the case's expected outputs. One test per case, each in a forked child.
//
// Environment: EDGEFOLD_ISA=scalar|sse4.2|avx2+fma|avx512 forces a dispatch level.
// At exit prints "conformance: N passed, M failed, K excluded" and one line per failure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "case_selection.h"
#include "isolated_run.h"
#include "tensor_io.h"

namespace edgefold::conformance {

// gtest prints parameters with this (found by ADL) instead of a hex dump.
void PrintTo(const CaseRef& c, std::ostream* os) { *os << c.id; }

namespace {

const Selection& TheSelection() {
  static const Selection sel =
      LoadSelection(EDGEFOLD_SELECTION_FILE, EDGEFOLD_ONNX_DATA_DIR, EDGEFOLD_GOLDEN_DATA_DIR);
  return sel;
}

std::vector<CaseRef> GoldenCases() {
  std::vector<CaseRef> out;
  for (const CaseRef& c : TheSelection().selected) {
    if (c.id.rfind("golden/", 0) == 0) out.push_back(c);
  }
  return out;
}

RunOptions BaseOptions() {
  RunOptions o;
  const char* isa = std::getenv("EDGEFOLD_ISA");
  if (isa && !ParseIsa(isa, &o.isa)) std::fprintf(stderr, "EDGEFOLD_ISA=%s unknown\n", isa);
  return o;
}

void RunAndCheck(const CaseRef& c, const RunOptions& options) {
  const CaseOutcome o = RunCaseIsolated(c.path, c.id, options);
  if (o.verdict == Verdict::kSkip) GTEST_SKIP() << c.id << ": " << o.message;
  if (o.verdict != Verdict::kPass) ADD_FAILURE() << "[" << o.stage << "] " << o.message;
  char err[32];
  std::snprintf(err, sizeof err, "%.3g", o.max_abs_error);
  ::testing::Test::RecordProperty("max_abs_error", err);
}

class Conformance : public ::testing::TestWithParam<CaseRef> {};
TEST_P(Conformance, MatchesExpectedOutputs) { RunAndCheck(GetParam(), BaseOptions()); }

// Golden models again with BatchNorm kept as its own op: the unfolded path must agree too.
class GoldenNoFold : public ::testing::TestWithParam<CaseRef> {};
TEST_P(GoldenNoFold, MatchesExpectedOutputs) {
  RunOptions o = BaseOptions();
  o.compile.fold_batchnorm = false;
  RunAndCheck(GetParam(), o);
}

std::string CaseName(const ::testing::TestParamInfo<CaseRef>& info) {
  return GTestName(info.param.id);
}

INSTANTIATE_TEST_SUITE_P(Onnx, Conformance, ::testing::ValuesIn(TheSelection().selected), CaseName);
INSTANTIATE_TEST_SUITE_P(Golden, GoldenNoFold, ::testing::ValuesIn(GoldenCases()), CaseName);

TEST(ConformanceSelection, ParsesWithoutErrors) {
  for (const std::string& e : TheSelection().errors) ADD_FAILURE() << e;
}

TEST(ConformanceSelection, ExpandsToASolidSet) {
  const Selection& sel = TheSelection();
  EXPECT_GE(sel.selected.size(), 150u);
  EXPECT_GE(GoldenCases().size(), 20u);
  for (const ExcludedCase& e : sel.excluded) EXPECT_FALSE(e.reason.empty()) << e.id;
}

// The runner must be able to fail: a golden case whose expected output is nudged by far more
// than the tolerance has to be reported as a compare failure (or fail earlier).
TEST(ConformanceRunner, RejectsPerturbedExpectedOutput) {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(EDGEFOLD_GOLDEN_DATA_DIR) / "conv_bn_relu";
  const fs::path dst = fs::temp_directory_path() / ("edgefold_conf_" + std::to_string(getpid()));
  fs::remove_all(dst);
  fs::copy(src, dst, fs::copy_options::recursive);
  const std::string out_pb = (dst / "test_data_set_0" / "output_0.pb").string();
  onnx::TensorProto t;
  std::string error;
  ASSERT_TRUE(ReadTensorFile(out_pb, &t, &error)) << error;
  std::vector<float> v;
  ASSERT_TRUE(TensorToFloats(t, &v, &error)) << error;
  v[v.size() / 2] += 0.5f;
  t.clear_raw_data();
  t.clear_float_data();
  for (float x : v) t.add_float_data(x);  // also exercises the float_data path
  {
    std::ofstream out(out_pb, std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(t.SerializeToOstream(&out));
  }
  const CaseOutcome o = RunCaseIsolated(dst.string(), "perturbed/conv_bn_relu", BaseOptions());
  fs::remove_all(dst);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.message;
  EXPECT_NE(o.message, "");
}

// Counts conformance results and prints the summary line the task asks for.
class SummaryPrinter : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.value_param()) return;  // only per-case tests
    const ::testing::TestResult& r = *info.result();
    if (r.Skipped()) {
      ++skipped_;
    } else if (r.Passed()) {
      ++passed_;
    } else {
      ++failed_;
      std::string msg;
      for (int i = 0; i < r.total_part_count(); ++i) {
        if (r.GetTestPartResult(i).failed()) msg = r.GetTestPartResult(i).message();
      }
      if (msg.rfind("Failed\n", 0) == 0) msg.erase(0, 7);  // ADD_FAILURE's prefix
      failures_ +=
          std::string("  FAIL ") + info.test_suite_name() + "." + info.name() + ": " + msg + "\n";
    }
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    const size_t listed = TheSelection().excluded.size();
    if (!failures_.empty()) std::printf("conformance failures:\n%s", failures_.c_str());
    std::printf(
        "conformance: %d passed, %d failed, %zu excluded (%zu in selected_cases.txt, "
        "%d skipped at load)\n",
        passed_, failed_, listed + skipped_, listed, skipped_);
    std::fflush(stdout);
  }

 private:
  int passed_ = 0, failed_ = 0, skipped_ = 0;
  std::string failures_;
};

}  // namespace
}  // namespace edgefold::conformance

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new edgefold::conformance::SummaryPrinter);
  return RUN_ALL_TESTS();
}
