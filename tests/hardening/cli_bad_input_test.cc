// Table-driven: each kind of bad input a user can hand the CLI, what exit code and message
// they get, and that a failing `compile` leaves neither an output file nor a temporary.
// The table below is also the "what the user sees" table of the hardening note.
#include <dirent.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "npy.h"
#include "testing/bad_onnx_models.h"
#include "testing/onnx_builder.h"
#include "testing/run_cli.h"

namespace edgefold::hardening {
namespace {

using testing::CliResult;
using testing::ConvBnModel;
using testing::FindInitializer;
using testing::FindNode;
using testing::SaveModel;
using testing::SetFloat;
using testing::SetString;

CliResult Cli(const std::string& args) { return testing::RunCli(EDGEFOLD_CLI, args); }

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

class CliBadInput : public testing::ScratchDirTest {
 protected:
  CliBadInput() : ScratchDirTest("edgefold_hardening") {}
  void SetUp() override {
    ScratchDirTest::SetUp();
    ASSERT_EQ(std::system(("mkdir -p '" + Path("out") + "'").c_str()), 0);
  }
};

// One bad ONNX input: how it is made, and a piece of the message the user must see.
struct CompileCase {
  const char* what;
  std::function<void(const std::string& path)> make;
  const char* message;  // must appear in the CLI's output
};

std::function<void(const std::string&)> Mutated(std::function<void(onnx::ModelProto&)> edit) {
  return [edit](const std::string& path) {
    onnx::ModelProto m = ConvBnModel();
    edit(m);
    ASSERT_TRUE(SaveModel(m, path));
  };
}

void SetValue(onnx::ModelProto& m, const char* initializer, int index, float value) {
  FindInitializer(m, initializer)->set_float_data(index, value);
}

const std::vector<CompileCase>& CompileCases() {
  static const std::vector<CompileCase> cases = {
      {"not a protobuf", [](const std::string& p) { WriteBytes(p, "this is not an ONNX file\n"); },
       "model.onnx"},
      {"empty file", [](const std::string& p) { WriteBytes(p, ""); }, "model.onnx"},
      {"truncated protobuf",
       [](const std::string& p) {
         std::string bytes;
         ConvBnModel().SerializeToString(&bytes);
         WriteBytes(p, bytes.substr(0, bytes.size() / 2));
       },
       "model.onnx"},
      {"missing initializer", Mutated([](onnx::ModelProto& m) {
         auto* inits = m.mutable_graph()->mutable_initializer();
         for (int i = 0; i < inits->size(); ++i)
           if (inits->Get(i).name() == "bn.var") {
             inits->DeleteSubrange(i, 1);
             break;
           }
       }),
       "bn.var"},
      {"negative variance", Mutated([](onnx::ModelProto& m) { SetValue(m, "bn.var", 1, -2.0f); }),
       "bn"},
      {"zero variance, epsilon 0", Mutated([](onnx::ModelProto& m) {
         SetValue(m, "bn.var", 0, 0.0f);
         SetFloat(*FindNode(m, "bn"), "epsilon", 0.0f);
       }),
       "bn"},
      {"zero-sized input dim", Mutated([](onnx::ModelProto& m) {
         m.mutable_graph()
             ->mutable_input(0)
             ->mutable_type()
             ->mutable_tensor_type()
             ->mutable_shape()
             ->mutable_dim(1)
             ->set_dim_value(0);
       }),
       "x"},
      {"unsupported attribute value", Mutated([](onnx::ModelProto& m) {
         SetString(*FindNode(m, "conv"), "auto_pad", "BOGUS_PAD");
       }),
       "conv"},
      {"unsupported op",
       Mutated([](onnx::ModelProto& m) { FindNode(m, "relu")->set_op_type("Celu"); }), "relu"},
      {"wrong weight shape",
       Mutated([](onnx::ModelProto& m) { FindInitializer(m, "fc.w")->set_dims(1, 5); }), "fc"},
  };
  return cases;
}

TEST_F(CliBadInput, CompileRejectsEachBadModelNamingItAndLeavesNoFile) {
  for (const CompileCase& c : CompileCases()) {
    SCOPED_TRACE(c.what);
    const std::string onnx = Path("model.onnx");
    c.make(onnx);
    const CliResult r = Cli("compile '" + onnx + "' -o '" + Path("out/model.efb") + "'");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos)
        << "message lacks '" << c.message << "': " << r.output;
    EXPECT_TRUE(ListDir(Path("out")).empty()) << "a failed compile left a file behind";
    std::printf("| compile: %s | exit %d | %s", c.what, r.exit_code, r.output.c_str());
  }
}

// Open compiler gap: weights are not checked for NaN/Inf. The Release build happens to refuse
// the model in the folded-vs-unfolded check (message without the initializer's name); the
// -O2 ASan build compiles it. Until the compiler names the initializer, only "no crash and
// no partial file" is asserted; the outcome is printed for the hardening note.
TEST_F(CliBadInput, NanWeightsNeverCrashTheCompiler) {
  onnx::ModelProto m = ConvBnModel();
  SetValue(m, "conv.w", 3, std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(SaveModel(m, Path("model.onnx")));
  const CliResult r =
      Cli("compile '" + Path("model.onnx") + "' -o '" + Path("out/model.efb") + "'");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
  const std::vector<std::string> left = ListDir(Path("out"));
  EXPECT_EQ(left.size(), r.exit_code == 0 ? 1u : 0u) << "partial or temporary file left";
  std::printf("| compile: NaN in weights | exit %d | %s", r.exit_code, r.output.c_str());
}

TEST_F(CliBadInput, GoodModelCompilesAndRunsSoTheTableIsMeaningful) {
  ASSERT_TRUE(SaveModel(ConvBnModel(), Path("model.onnx")));
  const CliResult r =
      Cli("compile '" + Path("model.onnx") + "' -o '" + Path("out/model.efb") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ListDir(Path("out")), std::vector<std::string>{"model.efb"}) << "temporary left behind";
}

TEST_F(CliBadInput, FailedCompileKeepsThePreviousOutputIntact) {
  ASSERT_TRUE(SaveModel(ConvBnModel(), Path("model.onnx")));
  WriteBytes(Path("out/model.efb"), "previous");
  WriteBytes(Path("out/model.efb.tmp"), "a user's file");  // never clobbered by our temporary
  WriteBytes(Path("bad.onnx"), "junk");
  EXPECT_EQ(Cli("compile '" + Path("bad.onnx") + "' -o '" + Path("out/model.efb") + "'").exit_code,
            1);
  std::ifstream f(Path("out/model.efb"));
  std::string kept((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "previous");
  ASSERT_EQ(
      Cli("compile '" + Path("model.onnx") + "' -o '" + Path("out/model.efb") + "'").exit_code, 0);
  std::ifstream g(Path("out/model.efb.tmp"));
  std::string user((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>());
  EXPECT_EQ(user, "a user's file");
  EXPECT_EQ(ListDir(Path("out")).size(), 2u) << "no temporary may remain";
}

TEST_F(CliBadInput, UnwritableOutputLeavesNoTemporary) {
  ASSERT_TRUE(SaveModel(ConvBnModel(), Path("model.onnx")));
  const CliResult missing_dir =
      Cli("compile '" + Path("model.onnx") + "' -o '" + Path("nodir/m.efb") + "'");
  EXPECT_EQ(missing_dir.exit_code, 1) << missing_dir.output;
  EXPECT_NE(missing_dir.output.find("nodir"), std::string::npos) << missing_dir.output;
  // The output path is a directory: rename fails, the temporary must be removed.
  const CliResult is_dir = Cli("compile '" + Path("model.onnx") + "' -o '" + Path("out") + "'");
  EXPECT_EQ(is_dir.exit_code, 1) << is_dir.output;
  EXPECT_TRUE(ListDir(Path("out")).empty());
  std::vector<std::string> left = ListDir(dir());
  EXPECT_EQ(left.size(), 2u) << "only model.onnx and out/ may remain";
}

// `run` on bad .efb files and bad inputs.
TEST_F(CliBadInput, RunRejectsBadModelsAndInputs) {
  ASSERT_TRUE(SaveModel(ConvBnModel(), Path("model.onnx")));
  ASSERT_EQ(Cli("compile '" + Path("model.onnx") + "' -o '" + Path("m.efb") + "'").exit_code, 0);
  std::ifstream f(Path("m.efb"), std::ios::binary);
  const std::string efb((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  WriteBytes(Path("truncated.efb"), efb.substr(0, efb.size() / 2));
  std::string wrong_id = efb;
  wrong_id[4] = 'X';
  WriteBytes(Path("wrong_id.efb"), wrong_id);
  WriteBytes(Path("empty.efb"), "");
  std::string error;
  std::vector<float> x(50, 0.5f), bad(49, 0.5f);
  ASSERT_TRUE(tools::WriteNpyFloat32(Path("x.npy"), x.data(), x.size(), {1, 2, 5, 5}, &error));
  ASSERT_TRUE(tools::WriteNpyFloat32(Path("bad.npy"), bad.data(), bad.size(), {1, 7, 7}, &error));
  WriteBytes(Path("junk.npy"), "\x93NUMPY\x01\x00garbage");
  struct RunCase {
    const char* what;
    std::string args;
    const char* message;
  };
  const std::vector<RunCase> cases = {
      {"truncated .efb", "'" + Path("truncated.efb") + "' -i '" + Path("x.npy") + "'",
       "truncated.efb"},
      {"wrong file identifier", "'" + Path("wrong_id.efb") + "' -i '" + Path("x.npy") + "'",
       "EFB1"},
      {"empty .efb", "'" + Path("empty.efb") + "' -i '" + Path("x.npy") + "'", "empty.efb"},
      {"missing .efb", "'" + Path("nope.efb") + "' -i '" + Path("x.npy") + "'", "nope.efb"},
      {"input of the wrong shape", "'" + Path("m.efb") + "' -i '" + Path("bad.npy") + "'", "x"},
      {"corrupt .npy", "'" + Path("m.efb") + "' -i '" + Path("junk.npy") + "'", "junk.npy"},
  };
  for (const RunCase& c : cases) {
    SCOPED_TRACE(c.what);
    const CliResult r = Cli("run " + c.args + " -o '" + Path("y.npy") + "'");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos)
        << "message lacks '" << c.message << "': " << r.output;
    std::printf("| run: %s | exit %d | %s", c.what, r.exit_code, r.output.c_str());
  }
}

}  // namespace
}  // namespace edgefold::hardening

namespace edgefold::hardening {
namespace {

// compile --quantize int8: calibration data the CLI must refuse (exit code, message naming the
// problem, no output file), then the same model with good data so the refusals are meaningful.
TEST_F(CliBadInput, QuantizeRefusesBadCalibrationData) {
  ASSERT_TRUE(SaveModel(ConvBnModel(), Path("model.onnx")));  // input x [1, 2, 5, 5]
  std::vector<float> good(8 * 50);
  for (size_t i = 0; i < good.size(); ++i) good[i] = std::sin(0.37f * static_cast<float>(i));
  std::vector<float> nan = good;
  nan[123] = std::numeric_limits<float>::quiet_NaN();
  std::string error;
  ASSERT_TRUE(
      tools::WriteNpyFloat32(Path("good.npy"), good.data(), good.size(), {8, 2, 5, 5}, &error))
      << error;
  ASSERT_TRUE(
      tools::WriteNpyFloat32(Path("shape.npy"), good.data(), good.size(), {8, 5, 2, 5}, &error))
      << error;
  ASSERT_TRUE(tools::WriteNpyFloat32(Path("nan.npy"), nan.data(), nan.size(), {8, 2, 5, 5}, &error))
      << error;
  const std::string base =
      "compile '" + Path("model.onnx") + "' -o '" + Path("out/model.efb") + "' --quantize int8";
  struct Case {
    const char* what;
    std::string args;
    int exit_code;
    const char* message;
  };
  const Case cases[] = {
      {"no calibration file", "", 2, "needs --calibrate"},
      {"calibration of the wrong shape", " --calibrate '" + Path("shape.npy") + "'", 1,
       "needs [-1, 2, 5, 5]"},
      {"NaN in calibration data", " --calibrate '" + Path("nan.npy") + "'", 1,
       "NaN at flat index 123 (sample 2)"},
      {"percentile out of range",
       " --calibrate '" + Path("good.npy") + "' --quantize-percentile 101", 2,
       "--quantize-percentile must be"},
      {"another quantization", " --calibrate '" + Path("good.npy") + "' --quantize int4", 2,
       "int8 only"},
      {"unknown clipping", " --calibrate '" + Path("good.npy") + "' --quantize-clip kl", 2,
       "--quantize-clip must be minmax or mse, got 'kl'"},
      {"two clippings",
       " --calibrate '" + Path("good.npy") + "' --quantize-clip mse --quantize-percentile 99", 2,
       "--quantize-clip mse and --quantize-percentile do not combine"},
      {"weight bits", " --calibrate '" + Path("good.npy") + "' --quantize-weight-bits 4", 2,
       "--quantize-weight-bits must be 7 or 8, got '4'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string args = base + c.args;
    if (std::string(c.what) == "another quantization")
      args.replace(args.find("--quantize int8"), 15, "");
    const CliResult r = Cli(args);
    EXPECT_EQ(r.exit_code, c.exit_code) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_TRUE(ListDir(Path("out")).empty());
  }
  const CliResult ok = Cli(base + " --calibrate '" + Path("good.npy") + "'");
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("top-1 agreement with float"), std::string::npos) << ok.output;
}

}  // namespace
}  // namespace edgefold::hardening
