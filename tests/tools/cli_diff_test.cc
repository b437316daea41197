// edgefold diff as a user runs it, on the digits CNN of examples/digits: a .efb compiled from the
// ONNX model (float and int8) shows no jump; with one conv's weights changed in the ONNX model
// diff names that conv as the first layer whose error jumps; a model adapted by `edgefold train`
// departs at its first BatchNorm.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include <onnx/onnx_pb.h>

#include "testing/run_cli.h"

namespace edgefold::tools {
namespace {

using Result = testing::CliResult;

const std::string kDigits = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_cnn.onnx";
const std::string kImages = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_test_x.npy";
const std::string kPerturbed = "/features/features.7/Conv";  // the third conv

Result Cli(const std::string& args) { return testing::RunCli(EDGEFOLD_CLI, args); }

bool Contains(const Result& r, const std::string& s) {
  return r.output.find(s) != std::string::npos;
}

class CliDiff : public testing::ScratchDirTest {
 protected:
  CliDiff() : ScratchDirTest("edgefold_cli_diff") {}

  // The digits model with output channel 0 of kPerturbed's weights scaled by 1.5.
  void WritePerturbed(const std::string& path) {
    onnx::ModelProto m;
    std::ifstream in(kDigits, std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
    std::string weights;
    for (const onnx::NodeProto& n : m.graph().node())
      if (n.name() == kPerturbed) weights = n.input(1);
    bool changed = false;
    for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
      if (t.name() != weights) continue;
      const size_t per_channel = static_cast<size_t>(t.dims(1) * t.dims(2) * t.dims(3));
      std::string raw = t.raw_data();
      ASSERT_GE(raw.size(), per_channel * sizeof(float));
      for (size_t i = 0; i < per_channel; ++i) {
        float v;
        std::memcpy(&v, raw.data() + i * sizeof(float), sizeof v);
        v *= 1.5f;
        std::memcpy(&raw[i * sizeof(float)], &v, sizeof v);
      }
      t.set_raw_data(raw);
      changed = true;
    }
    ASSERT_TRUE(changed) << "no weights of " << kPerturbed;
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }

  void ExpectDiffNamesThePerturbedLayer(const std::string& efb) {
    Result same = Cli("diff " + kDigits + " " + Path(efb) + " -i " + kImages);
    ASSERT_EQ(same.exit_code, 0) << same.output;
    EXPECT_TRUE(Contains(same, "450 run(s), 8 layers compared")) << same.output;
    EXPECT_TRUE(Contains(same, "no layer's error jumps by more than 10 dB")) << same.output;
    WritePerturbed(Path("perturbed.onnx"));
    Result r = Cli("diff " + Path("perturbed.onnx") + " " + Path(efb) + " -i " + kImages);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Contains(r, "first layer whose error jumps: '" + kPerturbed + "'")) << r.output;
  }
};

TEST_F(CliDiff, FloatModelNamesThePerturbedLayer) {
  Result c = Cli("compile " + kDigits + " -o " + Path("d.efb"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  ExpectDiffNamesThePerturbedLayer("d.efb");
}

TEST_F(CliDiff, Int8ModelNamesThePerturbedLayer) {
  Result c = Cli("compile " + kDigits + " -o " + Path("q.efb") + " --quantize int8 --calibrate " +
                 kImages);
  ASSERT_EQ(c.exit_code, 0) << c.output;
  ExpectDiffNamesThePerturbedLayer("q.efb");
}

// A model fine-tuned by `edgefold train` on the drift data: BatchNorm kept, its statistics
// moved; the first BatchNorm is where it departs from the ONNX model.
TEST_F(CliDiff, AdaptedModelNamesTheFirstBatchNorm) {
  const std::string e = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/";
  Result c = Cli("compile " + kDigits + " --train --batch 8 -o " + Path("t.efb"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  c = Cli("train " + Path("t.efb") + " --data " + e + "drift_adapt_x.npy --labels " + e +
          "drift_adapt_y.npy -o " + Path("adapted.efb"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  Result r = Cli("diff " + kDigits + " " + Path("adapted.efb") + " -i " + kImages);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      Contains(r, "first layer whose error jumps: '/features/features.1/BatchNormalization'"))
      << r.output;
}

// A QDQ model (PyTorch's PTQ export) compiles to int8; its reference is its float model, so every
// int8 layer is compared, none jumps.
TEST_F(CliDiff, QdqModelAgainstItsFloatModel) {
  const std::string qdq = std::string(EDGEFOLD_QDQ_DATA_DIR) + "/torch_ptq_cnn";
  Result c = Cli("compile " + qdq + ".onnx -o " + Path("qdq.efb"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  Result r = Cli("diff " + qdq + ".onnx " + Path("qdq.efb") + " -i " + qdq + "_input.npy");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "200 run(s), 6 layers compared")) << r.output;
  EXPECT_TRUE(Contains(r, "GemmInt8 (int8)")) << r.output;
  EXPECT_TRUE(Contains(r, "no layer's error jumps by more than 10 dB")) << r.output;
}

TEST_F(CliDiff, UsageAndInputErrors) {
  Result r = Cli("diff " + kDigits + " " + Path("missing.efb"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r, "no -i input")) << r.output;
  r = Cli("diff " + kDigits + " " + Path("missing.efb") + " -i " + kImages);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "missing.efb")) << r.output;
}

}  // namespace
}  // namespace edgefold::tools
