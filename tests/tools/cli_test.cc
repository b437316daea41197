// Runs bin/edgefold as a user would: usage errors exit 2, failures exit 1 with a message
// naming the file/input, and compile → inspect → run → bench on small ONNX models built
// in C++ (testing/tiny_onnx_models.h), with `run` outputs checked against a plain-loop reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "npy.h"
#include "testing/run_cli.h"
#include "testing/tiny_onnx_models.h"

namespace edgefold::tools {
namespace {

using Result = testing::CliResult;

Result Cli(const std::string& args) { return testing::RunCli(EDGEFOLD_CLI, args); }

bool Contains(const Result& r, const std::string& s) {
  return r.output.find(s) != std::string::npos;
}

class CliTest : public testing::ScratchDirTest {
 protected:
  CliTest() : ScratchDirTest("edgefold_cli") {}

  void WriteArray(const std::string& name, const std::vector<float>& v,
                  std::vector<int64_t> shape) {
    std::string error;
    ASSERT_TRUE(WriteNpyFloat32(Path(name), v.data(), v.size(), shape, &error)) << error;
  }
  NpyArray ReadArray(const std::string& name) {
    NpyArray a;
    std::string error;
    EXPECT_TRUE(ReadNpy(Path(name), &a, &error)) << error;
    return a;
  }
  std::string CompileConvBn(const std::string& extra = "") {
    std::string error;
    EXPECT_TRUE(testing::WriteConvBnModel(Path("m.onnx"), &error)) << error;
    const Result r = Cli("compile " + Path("m.onnx") + " -o " + Path("m.efb") + " " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }
};

std::vector<float> Ramp(size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(scale * static_cast<float>(i) + offset);
  return v;
}

TEST_F(CliTest, UsageErrorsExitWithTwo) {
  const std::vector<std::string> bad = {"",
                                        "frobnicate",
                                        "run --bogus",
                                        "compile " + Path("x.onnx"),
                                        "inspect",
                                        "inspect a.efb b.efb",
                                        "run m.efb -i a.npy",
                                        "run m.efb -i a.npy -o b.npy --isa mmx",
                                        "bench m.efb --runs abc",
                                        "bench m.efb --runs 0",
                                        "compile x.onnx -o y --input-shape x",
                                        "compile x.onnx -o y --input-shape x=1,a"};
  for (const std::string& args : bad) {
    const Result r = Cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(Contains(r, "usage") || Contains(r, "--input-shape")) << args << "\n" << r.output;
  }
  EXPECT_TRUE(Contains(Cli("run --bogus"), "unknown option '--bogus'"));
}

TEST_F(CliTest, HelpExitsWithZero) {
  for (const char* args :
       {"--help", "compile --help", "run -h", "inspect --help", "bench --help"}) {
    const Result r = Cli(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_TRUE(Contains(r, "usage: edgefold")) << args;
  }
  EXPECT_TRUE(Contains(Cli("run --help"), "stacked"));  // batching is documented
}

TEST_F(CliTest, FailuresExitWithOneAndNameTheFile) {
  Result r = Cli("compile " + Path("missing.onnx") + " -o " + Path("m.efb"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r, "missing.onnx")) << r.output;
  std::FILE* f = std::fopen(Path("garbage.efb").c_str(), "wb");
  std::fputs("this is not a flatbuffer", f);
  std::fclose(f);
  r = Cli("inspect " + Path("garbage.efb"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r, "garbage.efb: not a valid .efb")) << r.output;
  r = Cli("run " + Path("garbage.efb") + " -i a.npy -o b.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r, "garbage.efb")) << r.output;
}

TEST_F(CliTest, CompileReportsFoldingAndInspectShowsTheGraph) {
  const std::string report = CompileConvBn();
  EXPECT_NE(report.find("BatchNorm: 1 found, 1 folded backward"), std::string::npos) << report;
  EXPECT_NE(report.find("verify: max abs error"), std::string::npos) << report;
  const Result r = Cli("inspect " + Path("m.efb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"format_version:", "producer:", "x [1, 2, 5, 5]", "y [1, 4]", "Conv",
                        "Gemm", "arena:", "lower bound", "weights:", "kernel ISA (auto):"}) {
    EXPECT_TRUE(Contains(r, s)) << s << "\n" << r.output;
  }
  EXPECT_FALSE(Contains(r, "BatchNorm")) << "BatchNorm should have been folded\n" << r.output;
}

TEST_F(CliTest, WarnsWhenEdgefoldIsaIsIgnored) {
  CompileConvBn();
  WriteArray("x1.npy", Ramp(testing::kConvBnInputElems, 0.37f, 0.2f), {1, 2, 5, 5});
  const std::string run =
      "run " + Path("m.efb") + " -i " + Path("x1.npy") + " -o " + Path("y1.npy");
  const char* outer = std::getenv("EDGEFOLD_ISA");
  const std::string saved = outer != nullptr ? outer : "";
  setenv("EDGEFOLD_ISA", "avx2", 1);  // not a level name ("avx2+fma" is)
  const Result unknown = Cli(run);
  setenv("EDGEFOLD_ISA", "scalar", 1);
  const Result known = Cli(run);
  outer != nullptr ? setenv("EDGEFOLD_ISA", saved.c_str(), 1) : unsetenv("EDGEFOLD_ISA");
  ASSERT_EQ(unknown.exit_code, 0) << unknown.output;
  EXPECT_TRUE(Contains(unknown, "EDGEFOLD_ISA=avx2 is not a level")) << unknown.output;
  ASSERT_EQ(known.exit_code, 0) << known.output;
  EXPECT_FALSE(Contains(known, "EDGEFOLD_ISA")) << known.output;
}

TEST_F(CliTest, RunMatchesReferenceOnEveryIsaAndStacksBatches) {
  CompileConvBn();
  constexpr int kSlices = 3;
  const std::vector<float> x = Ramp(kSlices * testing::kConvBnInputElems, 0.37f, 0.2f);
  WriteArray("x1.npy", std::vector<float>(x.begin(), x.begin() + testing::kConvBnInputElems),
             {1, 2, 5, 5});
  WriteArray("x3.npy", x, {kSlices, 2, 5, 5});
  for (const char* isa : {"auto", "scalar", "sse4.2", "avx2+fma", "avx512"}) {
    Result r = Cli("run " + Path("m.efb") + " -i " + Path("x3.npy") + " -o " + Path("y3.npy") +
                   " --isa " + isa);
    if (r.exit_code == 1 && Contains(r, "not available")) continue;  // CPU lacks it
    ASSERT_EQ(r.exit_code, 0) << isa << "\n" << r.output;
    const NpyArray y = ReadArray("y3.npy");
    ASSERT_EQ(y.shape, (std::vector<int64_t>{kSlices, 4})) << isa;
    for (int s = 0; s < kSlices; ++s) {
      const std::vector<float> xs(x.begin() + s * testing::kConvBnInputElems,
                                  x.begin() + (s + 1) * testing::kConvBnInputElems);
      const std::vector<float> want = testing::ConvBnReference(xs);
      for (int o = 0; o < 4; ++o) EXPECT_NEAR(y.f32[s * 4 + o], want[o], 1e-4) << isa;
    }
  }
  ASSERT_EQ(
      Cli("run " + Path("m.efb") + " -i " + Path("x1.npy") + " -o " + Path("y1.npy")).exit_code, 0);
  const NpyArray y1 = ReadArray("y1.npy");
  EXPECT_EQ(y1.shape, (std::vector<int64_t>{1, 4}));
}

TEST_F(CliTest, UnfoldedModelGivesTheSameOutputs) {
  CompileConvBn("--no-fold");
  const std::vector<float> x = Ramp(testing::kConvBnInputElems, 0.61f, 1.0f);
  WriteArray("x.npy", x, {1, 2, 5, 5});
  const Result r = Cli("run " + Path("m.efb") + " -i " + Path("x.npy") + " -o " + Path("y.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const NpyArray y = ReadArray("y.npy");
  const std::vector<float> want = testing::ConvBnReference(x);
  ASSERT_EQ(y.f32.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) EXPECT_NEAR(y.f32[o], want[o], 1e-4);
}

// The Flatten before the Gemm is planned as a view of the conv's output; --no-views copies it
// (a model for runtimes that predate views), with the same outputs.
TEST_F(CliTest, NoViewsCopiesEveryReshape) {
  EXPECT_TRUE(CompileConvBn().find("(1 views:") != std::string::npos) << CompileConvBn();
  const std::vector<float> x = Ramp(testing::kConvBnInputElems, 0.29f, 0.5f);
  WriteArray("x.npy", x, {1, 2, 5, 5});
  ASSERT_EQ(
      Cli("run " + Path("m.efb") + " -i " + Path("x.npy") + " -o " + Path("views.npy")).exit_code,
      0);
  const std::string report = CompileConvBn("--no-views");
  EXPECT_NE(report.find("(0 views:"), std::string::npos) << report;
  ASSERT_EQ(
      Cli("run " + Path("m.efb") + " -i " + Path("x.npy") + " -o " + Path("copies.npy")).exit_code,
      0);
  EXPECT_EQ(ReadArray("views.npy").f32, ReadArray("copies.npy").f32);
}

TEST_F(CliTest, RunRejectsWrongShapesNamingTheInput) {
  CompileConvBn();
  WriteArray("bad.npy", Ramp(2 * 5 * 4, 1, 0), {1, 2, 5, 4});
  Result r = Cli("run " + Path("m.efb") + " -i " + Path("bad.npy") + " -o " + Path("y.npy"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r, "input 0 'x'")) << r.output;
  EXPECT_TRUE(Contains(r, "[1, 2, 5, 4]") && Contains(r, "[1, 2, 5, 5]")) << r.output;
  WriteArray("x.npy", Ramp(50, 1, 0), {1, 2, 5, 5});
  r = Cli("run " + Path("m.efb") + " -i " + Path("x.npy") + " -i " + Path("x.npy") + " -o " +
          Path("y.npy"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r, "the model has 1 input(s), got 2")) << r.output;
}

TEST_F(CliTest, BenchPrintsMedianLastLine) {
  CompileConvBn();
  const Result r = Cli("bench " + Path("m.efb") + " --runs 7 --warmup 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "min_ms=") && Contains(r, "p90_ms=")) << r.output;
  const size_t last = r.output.rfind("median_ms=", r.output.size());
  ASSERT_NE(last, std::string::npos);
  EXPECT_TRUE(last == 0 || r.output[last - 1] == '\n') << r.output;
  EXPECT_GT(std::stod(r.output.substr(last + 10)), 0.0);
}

// --threads 2 says how many of the runs (warmup included) split over the threads: at least the
// first (Options::adapt_splits starts split), at most all of them; with --fixed-split, all.
TEST_F(CliTest, BenchWithThreadsSaysHowManyRunsSplit) {
  CompileConvBn();
  const Result r = Cli("bench " + Path("m.efb") + " --runs 7 --warmup 2 --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t at = r.output.find("split over threads: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  size_t split = 0, runs = 0;
  ASSERT_EQ(
      std::sscanf(r.output.c_str() + at, "split over threads: %zu of %zu runs", &split, &runs), 2)
      << r.output;
  EXPECT_EQ(runs, 9u);
  EXPECT_GE(split, 1u);
  EXPECT_LE(split, runs);
  EXPECT_FALSE(Contains(Cli("bench " + Path("m.efb") + " --runs 3"), "split over threads"))
      << "one thread";
  const Result fixed =
      Cli("bench " + Path("m.efb") + " --runs 7 --warmup 2 --threads 2 --fixed-split");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_TRUE(Contains(fixed, "split over threads: 9 of 9 runs")) << fixed.output;
}

// --profile lists every op once (the runtime's after-op callback), with a share of the time,
// and the median stays the last line.
TEST_F(CliTest, BenchProfileListsEveryOp) {
  CompileConvBn();
  const Result r = Cli("bench " + Path("m.efb") + " --runs 5 --warmup 1 --profile");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(Contains(r, "per-op profile")) << r.output;
  const Result inspect = Cli("inspect " + Path("m.efb"));
  ASSERT_EQ(inspect.exit_code, 0) << inspect.output;
  size_t ops = 0;
  for (size_t at = r.output.find("\n  #"); at != std::string::npos;
       at = r.output.find("\n  #", at + 1))
    ++ops;
  const size_t count_at = inspect.output.find("operators (");
  ASSERT_NE(count_at, std::string::npos) << inspect.output;
  EXPECT_EQ(ops, std::stoul(inspect.output.substr(count_at + 11))) << r.output;
  EXPECT_TRUE(Contains(r, "%")) << r.output;
  const size_t last = r.output.rfind("median_ms=");
  ASSERT_NE(last, std::string::npos);
  EXPECT_EQ(r.output.find('\n', last), r.output.size() - 1) << r.output;
}

TEST_F(CliTest, MultipleInputsAreTakenInGraphOrder) {
  std::string error;
  ASSERT_TRUE(testing::WriteTwoInputModel(Path("two.onnx"), &error)) << error;
  Result r = Cli("compile " + Path("two.onnx") + " -o " + Path("two.efb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  WriteArray("a.npy", {1, 5, -2, 4, 0, 0}, {2, 3});  // two slices
  WriteArray("b.npy", {2, 1, -3, 1, -1, 2}, {2, 3});
  r = Cli("run " + Path("two.efb") + " -i " + Path("a.npy") + " -i " + Path("b.npy") + " -o " +
          Path("y.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // max((a − b)·s, 0) per slice, s = {1, 2, 0.5}
  EXPECT_EQ(ReadArray("y.npy").f32, (std::vector<float>{0, 8, 0.5f, 3, 2, 0}));
  WriteArray("b1.npy", {2, 1, -3}, {1, 3});
  r = Cli("run " + Path("two.efb") + " -i " + Path("a.npy") + " -i " + Path("b1.npy") + " -o " +
          Path("y.npy"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r, "input 1 'b'")) << r.output;
}

}  // namespace
}  // namespace edgefold::tools
