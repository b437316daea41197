// GRU, LSTM, Gather and Expand in the compiler: the golden PyTorch recurrent models compile to
// one Rnn op with their BatchNorm folded and PyTorch's zero-state Expand folded away; weights
// are packed transposed per direction; what the runtime cell does not compute is refused
// naming the node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using ::testing::HasSubstr;
using testing::OnnxBuilder;

class GoldenRnn : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenRnn, CompilesToOneRnnWithBatchNormFolded) {
  const std::string path = std::string(EDGEFOLD_GOLDEN_DATA_DIR) + "/" + GetParam() + "/model.onnx";
  const CompileResult r = CompileFile(path, CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.verified,
            r.report.batchnorm_found > 0);  // folded vs unfolded, when there is a fold
  EXPECT_EQ(r.report.batchnorm_folded_backward, r.report.batchnorm_found);
  EXPECT_EQ(testing::CountOps(r.model, fb::OpType::Rnn), 1u);
  EXPECT_EQ(testing::CountOps(r.model, fb::OpType::Expand),
            0u);  // the zero initial state is folded
  EXPECT_EQ(testing::CountOps(r.model, fb::OpType::BatchNorm) +
                testing::CountOps(r.model, fb::OpType::ChannelAffine),
            0u);
}

INSTANTIATE_TEST_SUITE_P(Models, GoldenRnn,
                         ::testing::Values("gru_time_major", "gru_batch_first_final_state",
                                           "lstm_bidirectional", "kws_conv_bn_gru"));

TEST(RnnLowering, KeywordSpotterFoldsItsBatchNormIntoTheConv) {
  const CompileResult r = CompileFile(
      std::string(EDGEFOLD_GOLDEN_DATA_DIR) + "/kws_conv_bn_gru/model.onnx", CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.report.batchnorm_found, 1);
  EXPECT_EQ(r.report.batchnorm_folded_backward, 1);
  const auto rnn = testing::OpsOfType(testing::ModelOf(r.model), fb::OpType::Rnn);
  ASSERT_EQ(rnn.size(), 1u);
  const auto* o = rnn[0]->options_as_RnnOptions();
  EXPECT_EQ(o->cell(), fb::RnnCell::Gru);
  EXPECT_TRUE(o->linear_before_reset());  // PyTorch's GRU
  EXPECT_TRUE(o->output_sequence());      // Y feeds the last-step Gather
  EXPECT_EQ(o->hidden_size(), 32);
  EXPECT_GT(rnn[0]->scratch_bytes(), 0u);
}

// GRU X [2, 1, 3], hidden 2, W = arange: the packed W is Wᵀ per direction, [1, 3, 6].
TEST(RnnLowering, PacksWeightsTransposed) {
  OnnxBuilder b;
  std::vector<float> w(18), r(12, 0.1f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
  b.Input("x", {2, 1, 3}).Init("w", {1, 6, 3}, w).Init("r", {1, 6, 2}, r);
  testing::SetInt(b.Node("GRU", {"x", "w", "r"}, {"", "h"}, "gru"), "hidden_size", 2);
  b.Output("h");
  const CompileResult c = CompileModel(b.model(), testing::NoVerify());
  ASSERT_TRUE(c.ok) << c.error;
  const fb::Model* m = testing::ModelOf(c.model);
  const auto ops = testing::OpsOfType(m, fb::OpType::Rnn);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_FALSE(ops[0]->options_as_RnnOptions()->output_sequence());  // Y is absent
  const std::vector<float> packed = testing::ConstData(m, ops[0]->inputs()->Get(1));
  ASSERT_EQ(packed.size(), 18u);
  for (int i = 0; i < 3; ++i)
    for (int g = 0; g < 6; ++g) EXPECT_EQ(packed[i * 6 + g], w[g * 3 + i]) << i << "," << g;
  const std::vector<float> bias = testing::ConstData(m, ops[0]->inputs()->Get(3));
  EXPECT_EQ(bias, std::vector<float>(12, 0.0f));  // absent B is zeros
}

// A one-node LSTM/GRU model with X [seq 3, batch 1, input 2], hidden 2.
OnnxBuilder Cell(const std::string& op, onnx::NodeProto** node, int64_t gates = 0) {
  const int64_t g = gates > 0 ? gates : (op == "LSTM" ? 4 : 3);
  OnnxBuilder b;
  b.Input("x", {3, 1, 2})
      .Init("w", {1, g * 2, 2}, testing::RandomVector(static_cast<size_t>(g * 4), 1))
      .Init("r", {1, g * 2, 2}, testing::RandomVector(static_cast<size_t>(g * 4), 2));
  *node = &b.Node(op, {"x", "w", "r"}, {"y", "h"}, "rnn_node");
  testing::SetInt(**node, "hidden_size", 2);
  b.Output("y");
  return b;
}

void ExpectRefused(const onnx::ModelProto& m, const std::string& what) {
  const CompileResult r = CompileModel(m, testing::NoVerify());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("rnn_node"));
  EXPECT_THAT(r.error, HasSubstr(what));
}

TEST(RnnLowering, RefusesOtherActivationsNamingTheNode) {
  onnx::NodeProto* n = nullptr;
  OnnxBuilder b = Cell("GRU", &n);
  auto* a = n->add_attribute();
  a->set_name("activations");
  a->set_type(onnx::AttributeProto::STRINGS);
  a->add_strings("Relu");
  a->add_strings("Tanh");
  ExpectRefused(b.model(), "default activations");
}

TEST(RnnLowering, RefusesClipAndInputForget) {
  onnx::NodeProto* n = nullptr;
  OnnxBuilder b = Cell("LSTM", &n);
  testing::SetFloat(*n, "clip", 3.0f);
  ExpectRefused(b.model(), "clip");
  OnnxBuilder c = Cell("LSTM", &n);
  testing::SetInt(*n, "input_forget", 1);
  ExpectRefused(c.model(), "input_forget");
}

TEST(RnnLowering, RefusesShortSequenceLens) {
  onnx::NodeProto* n = nullptr;
  OnnxBuilder b = Cell("GRU", &n);
  b.InitInt64("lens", {1}, {2});
  n->clear_input();
  for (const char* in : {"x", "w", "r", "", "lens"}) n->add_input(in);
  onnx::ModelProto m = b.model();
  onnx::TensorProto* lens = testing::FindInitializer(m, "lens");  // sequence_lens is int32
  lens->clear_int64_data();
  lens->set_data_type(onnx::TensorProto::INT32);
  lens->add_int32_data(2);
  ExpectRefused(m, "sequence_lens entry 2 differs from the sequence length 3");
}

TEST(RnnLowering, RefusesWeightsThatDoNotFitHiddenSize) {
  onnx::NodeProto* n = nullptr;
  OnnxBuilder b = Cell("LSTM", &n, 3);  // 3 gates' rows for an LSTM
  ExpectRefused(b.model(), "does not hold 4 gates");
}

TEST(RnnLowering, RefusesPeepholes) {
  onnx::NodeProto* n = nullptr;
  OnnxBuilder b = Cell("LSTM", &n);
  b.Init("p", {1, 6}, testing::RandomVector(6, 3));
  n->clear_input();
  for (const char* in : {"x", "w", "r", "", "", "", "", "p"}) n->add_input(in);
  ExpectRefused(b.model(), "peepholes");
}

TEST(GatherLowering, RefusesIndicesThatAreAnInput) {
  OnnxBuilder b;
  b.Input("x", {2, 5, 3}).Input("i", {1});
  b.Node("Gather", {"x", "i"}, {"y"}, "take_node");
  b.Output("y", {2, 1, 3});
  const CompileResult r = CompileModel(b.model(), testing::NoVerify());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("take_node"));
}

TEST(GatherLowering, LastTimeStepIsOneSlice) {
  OnnxBuilder b;
  b.Input("x", {2, 5, 3}).InitInt64("i", {}, {-1});
  testing::SetInt(b.Node("Gather", {"x", "i"}, {"y"}, "last"), "axis", 1);
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const auto slices = testing::OpsOfType(testing::ModelOf(r.model), fb::OpType::Slice);
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0]->options_as_SliceOptions()->starts()->Get(1), 4);
  const std::vector<float> x = testing::RandomVector(30, 4);
  const std::vector<std::vector<float>> y = testing::RunEfb(r.model, {x});
  ASSERT_EQ(y.at(0).size(), 6u);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(y[0][n * 3 + c], x[(n * 5 + 4) * 3 + c]);
}

TEST(ExpandLowering, BroadcastsAnActivation) {
  OnnxBuilder b;
  b.Input("x", {3, 1}).InitInt64("s", {3}, {2, 3, 4});
  b.Node("Expand", {"x", "s"}, {"y"}, "grow");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(testing::CountOps(r.model, fb::OpType::Expand), 1u);
  const std::vector<std::vector<float>> y = testing::RunEfb(r.model, {{1, 2, 3}});
  ASSERT_EQ(y.at(0).size(), 24u);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(y[0][i], static_cast<float>(i / 4 % 3 + 1)) << i;
}

}  // namespace
}  // namespace edgefold::compiler
