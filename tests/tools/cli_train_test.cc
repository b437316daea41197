// `edgefold train` trains what the model was compiled for (compile --train --trainable): no
// flag means the model's set, an explicit flag must agree with it or fail naming both.
#include <gtest/gtest.h>

#include <string>

#include "npy.h"
#include "testing/run_cli.h"

namespace edgefold::tools {
namespace {

using Result = testing::CliResult;
const std::string kDigits = EDGEFOLD_DIGITS_DIR;

Result Cli(const std::string& args) { return testing::RunCli(EDGEFOLD_CLI, args); }

class CliTrainTest : public testing::ScratchDirTest {
 protected:
  CliTrainTest() : ScratchDirTest("edgefold_cli_train") {}

  void CompileForTraining(const std::string& set, const std::string& out) {
    const Result r = Cli("compile " + kDigits + "/digits_cnn.onnx --train --batch 10 --trainable " +
                         set + " -o " + Path(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  Result Train(const std::string& model, const std::string& extra, const std::string& out) {
    return Cli("train " + Path(model) + " --data " + kDigits + "/drift_adapt_x.npy --labels " +
               kDigits + "/drift_adapt_y.npy --epochs 1 --no-shuffle --lr 0.05 " + extra + " -o " +
               Path(out));
  }
  // The adapted model's logits on the drifted evaluation images.
  std::vector<float> Logits(const std::string& model) {
    const Result r = Cli("run " + Path(model) + " -i " + kDigits + "/drift_eval_x.npy -o " +
                         Path(model + ".npy"));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    NpyArray a;
    std::string error;
    EXPECT_TRUE(ReadNpy(Path(model + ".npy"), &a, &error)) << error;
    return a.f32;
  }
};

TEST_F(CliTrainTest, NoFlagTrainsTheCompiledSetIncludingTheHead) {
  CompileForTraining("bn+head", "head.efb");
  CompileForTraining("bn", "bn.efb");
  Result r = Train("head.efb", "", "head_default.efb");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = Train("head.efb", "--trainable bn+head", "head_explicit.efb");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = Train("bn.efb", "", "bn_default.efb");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<float> head_default = Logits("head_default.efb");
  ASSERT_FALSE(head_default.empty());
  EXPECT_EQ(head_default, Logits("head_explicit.efb")) << "no flag must train the model's own set";
  EXPECT_NE(head_default, Logits("bn_default.efb")) << "the head must have been trained";
}

TEST_F(CliTrainTest, AFlagThatDisagreesWithTheModelFailsNamingBoth) {
  CompileForTraining("bn+head", "head.efb");
  const Result r = Train("head.efb", "--trainable bn", "out.efb");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'bn'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bn+head"), std::string::npos) << r.output;
}

// compile --recompute: the compiler says how it split the backward, and `edgefold train`
// adapts the model bit for bit as without recomputation.
TEST_F(CliTrainTest, RecomputeTrainsBitForBitAsKeepingEveryValue) {
  CompileForTraining("all", "kept.efb");
  const Result r = Cli("compile " + kDigits +
                       "/digits_cnn.onnx --train --batch 10 --trainable all --recompute -o " +
                       Path("recomputed.efb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("recompute: the backward runs in"), std::string::npos) << r.output;
  ASSERT_EQ(Train("kept.efb", "", "kept_out.efb").exit_code, 0);
  ASSERT_EQ(Train("recomputed.efb", "", "recomputed_out.efb").exit_code, 0);
  const std::vector<float> kept = Logits("kept_out.efb");
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept, Logits("recomputed_out.efb"));
  EXPECT_NE(
      Cli("compile " + kDigits + "/digits_cnn.onnx --recompute -o " + Path("x.efb")).exit_code, 0)
      << "--recompute without --train must be refused";
}

// Train at batch N, infer at batch 1: the model's graph stays at batch 1 (compile --train
// --batch 10), the trainer runs it at 10, and the adapted model takes one sample at a time.
TEST_F(CliTrainTest, AModelTrainedAtBatchTenInfersOneSample) {
  CompileForTraining("bn+head", "head.efb");
  ASSERT_EQ(Train("head.efb", "", "adapted.efb").exit_code, 0);
  const Result inspect = Cli("inspect " + Path("adapted.efb"));
  EXPECT_NE(inspect.output.find("image [1, 1, "), std::string::npos) << inspect.output;
  const std::vector<float> all = Logits("adapted.efb");
  NpyArray x;
  std::string error;
  ASSERT_TRUE(ReadNpy(kDigits + "/drift_eval_x.npy", &x, &error)) << error;
  ASSERT_GE(x.shape.size(), 2u);
  const size_t sample = x.elems() / static_cast<size_t>(x.shape[0]),
               classes = all.size() / static_cast<size_t>(x.shape[0]);
  for (size_t n : {size_t(0), size_t(7), static_cast<size_t>(x.shape[0]) - 1}) {
    std::vector<int64_t> shape = x.shape;
    shape[0] = 1;
    const std::string one = "one_" + std::to_string(n) + ".npy";
    ASSERT_TRUE(WriteNpyFloat32(Path(one), x.f32.data() + n * sample, sample, shape, &error))
        << error;
    const Result r =
        Cli("run " + Path("adapted.efb") + " -i " + Path(one) + " -o " + Path(one + ".out.npy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    NpyArray y;
    ASSERT_TRUE(ReadNpy(Path(one + ".out.npy"), &y, &error)) << error;
    ASSERT_EQ(y.f32.size(), classes);
    for (size_t c = 0; c < classes; ++c)
      EXPECT_FLOAT_EQ(y.f32[c], all[n * classes + c]) << "sample " << n;
  }
}

// An int8 model compiled --adaptable follows the drift with `train --adapt-stats-only`: its
// accuracy on held-out drifted images rises (the digits CNN: about 50 % → 88 %), and the
// command refuses to train its weights.
TEST_F(CliTrainTest, Int8ModelAdaptsItsStatistics) {
  Result r = Cli("compile " + kDigits + "/digits_cnn.onnx --quantize int8 --calibrate " + kDigits +
                 "/digits_test_x.npy --adaptable -o " + Path("q.efb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("int8 adaptable: 4 layers"), std::string::npos) << r.output;
  r = Cli("train " + Path("q.efb") + " --data " + kDigits + "/drift_adapt_x.npy -o " +
          Path("x.efb"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("add --adapt-stats-only"), std::string::npos) << r.output;
  r = Cli("train " + Path("q.efb") + " --adapt-stats-only --data " + kDigits +
          "/drift_adapt_x.npy --labels " + kDigits + "/drift_adapt_y.npy -o " +
          Path("adapted.efb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  NpyArray labels;
  std::string error;
  ASSERT_TRUE(ReadNpy(kDigits + "/drift_eval_y.npy", &labels, &error)) << error;
  const auto accuracy = [&](const std::string& model) {
    const std::vector<float> logits = Logits(model);
    const size_t n = labels.elems(), classes = logits.size() / n;
    size_t correct = 0;
    for (size_t i = 0; i < n; ++i) {
      size_t best = 0;
      for (size_t k = 1; k < classes; ++k)
        if (logits[i * classes + k] > logits[i * classes + best]) best = k;
      correct += static_cast<int64_t>(best) == labels.i64[i];
    }
    return double(correct) / double(n);
  };
  const double before = accuracy("q.efb"), after = accuracy("adapted.efb");
  std::printf("int8 digits on drifted images: accuracy %.3f before adapting, %.3f after\n", before,
              after);
  EXPECT_GT(after, before + 0.25);
  EXPECT_GT(after, 0.8);
}

}  // namespace
}  // namespace edgefold::tools
