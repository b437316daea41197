// Writer output: passes the FlatBuffers verifier, EFB1 identifier, 64-byte aligned weights,
// planned activations that never overlap while live.
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::OnnxBuilder;

std::vector<uint8_t> SmallCnn(CompileReport* report) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 8, 8}).Init("w1", {5, 3, 3, 3}, testing::RandomVector(135, 1));
  b.Init("b1", {5}, testing::RandomVector(5, 2))
      .Init("w2", {7, 5, 3, 3}, testing::RandomVector(315, 3));
  b.Init("fc", {7, 3}, testing::RandomVector(21, 4));
  auto& c1 = b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  testing::SetInts(c1, "pads", {1, 1, 1, 1});
  testing::AddBatchNorm(b, "bn1", "c1", "n1", 5, 5);
  b.Node("Relu", {"n1"}, {"r1"}, "relu1");
  auto& p = b.Node("MaxPool", {"r1"}, {"p1"}, "pool1");
  testing::SetInts(p, "kernel_shape", {2, 2});
  testing::SetInts(p, "strides", {2, 2});
  b.Node("Conv", {"p1", "w2"}, {"c2"}, "conv2");
  b.Node("GlobalAveragePool", {"c2"}, {"g"}, "gap");
  b.Node("Flatten", {"g"}, {"f"}, "flatten");
  b.Node("MatMul", {"f", "fc"}, {"logits"}, "fc");
  b.Node("Softmax", {"logits"}, {"y"}, "softmax");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  EXPECT_TRUE(r.ok) << r.error;
  *report = r.report;
  return r.model;
}

TEST(Writer, VerifiesAndAlignsWeights) {
  CompileReport report;
  const std::vector<uint8_t> efb = SmallCnn(&report);
  ASSERT_FALSE(efb.empty());
  flatbuffers::Verifier v(efb.data(), efb.size());
  EXPECT_TRUE(fb::VerifyModelBuffer(v));
  EXPECT_TRUE(fb::ModelBufferHasIdentifier(efb.data()));
  const fb::Model* m = testing::ModelOf(efb);
  EXPECT_EQ(m->format_version(), 1u);
  EXPECT_EQ((m->weights()->data() - efb.data()) % 64, 0);
  int constants = 0;
  for (const fb::Tensor* t : *m->tensors()) {
    EXPECT_NE(t->arena_offset() >= 0, t->weight_offset() >= 0) << t->name()->str();
    if (t->weight_offset() >= 0) {
      ++constants;
      EXPECT_EQ(t->weight_offset() % 64, 0);
      EXPECT_LE(t->weight_offset() + static_cast<int64_t>(t->bytes()),
                static_cast<int64_t>(m->weights()->size()));
    } else {
      EXPECT_EQ(t->arena_offset() % 64, 0);
      EXPECT_LE(t->arena_offset() + static_cast<int64_t>(t->bytes()),
                static_cast<int64_t>(m->arena_bytes()));
    }
  }
  EXPECT_GE(constants, 4);
  EXPECT_EQ(report.weight_bytes, m->weights()->size());
  EXPECT_GE(m->arena_bytes(), m->arena_lower_bound());
  EXPECT_EQ(report.arena_bytes, m->arena_bytes());
  EXPECT_EQ(report.batchnorm_folded_backward, 1);
  EXPECT_EQ(report.activations_fused, 1);
  // conv1 (pads 1) needs phase-plane scratch, planned inside the arena: 3 planes of 10×10 + 18
  // slack → 320 floats, pitched output 5·80 (7·10 + 8 rounded up to 16) floats, 27 row offsets
  // → 128 bytes.
  const fb::Operator* conv1 = m->operators()->Get(0);
  EXPECT_STREQ(conv1->name()->c_str(), "conv1");
  EXPECT_EQ(conv1->scratch_bytes(), (320u + 400u) * 4 + 128);
  EXPECT_GE(conv1->scratch_offset(), 0);
  EXPECT_EQ(conv1->scratch_offset() % 64, 0);
}

TEST(Writer, OutputsOfAnOpNeverAliasItsInputs) {
  CompileReport report;
  const std::vector<uint8_t> efb = SmallCnn(&report);
  const fb::Model* m = testing::ModelOf(efb);
  for (const fb::Operator* op : *m->operators()) {
    // A Reshape's output may be planned on its input's bytes (a view; tensor_views_test).
    const bool view = op->type() == fb::OpType::Reshape;
    for (int in : *op->inputs()) {
      if (in < 0 || m->tensors()->Get(in)->arena_offset() < 0) continue;
      const fb::Tensor* a = m->tensors()->Get(in);
      for (int out : *op->outputs()) {
        const fb::Tensor* b = m->tensors()->Get(out);
        const bool disjoint =
            a->arena_offset() + static_cast<int64_t>(a->bytes()) <= b->arena_offset() ||
            b->arena_offset() + static_cast<int64_t>(b->bytes()) <= a->arena_offset();
        const bool same = a->arena_offset() == b->arena_offset() && a->bytes() == b->bytes();
        EXPECT_TRUE(disjoint || (view && same)) << op->name()->str();
      }
    }
  }
}

TEST(Writer, WriteFileAtomicLeavesNoTempFile) {
  const std::string path = ::testing::TempDir() + "/atomic.efb";
  std::string err;
  ASSERT_TRUE(WriteFileAtomic(path, {1, 2, 3}, &err)) << err;
  FILE* f = std::fopen((path + ".tmp").c_str(), "rb");
  EXPECT_EQ(f, nullptr);
  if (f) std::fclose(f);
  EXPECT_FALSE(WriteFileAtomic("/nonexistent-dir/x.efb", {1}, &err));
  EXPECT_FALSE(err.empty());
}

}  // namespace
}  // namespace edgefold::compiler

namespace edgefold::compiler {
namespace {

// A 3×3 stride-1 conv with 64 → 64 channels stores Winograd filters (checked against the plain
// graph by the compiler's own verify): F(2,3) [4, 4, Cout, Cin] on a 10×7 plane, F(4,3)
// [6, 6, Cout, Cin] on a 16×15 one, either where --winograd-tile says so; --no-winograd and the
// narrow 8-channel conv keep plain weights.
struct WinogradBuild {
  std::vector<uint8_t> model;
  CompileReport report;
};
WinogradBuild BuildWinogradNet(bool winograd, int tile, int64_t h, int64_t w) {
  OnnxBuilder b;
  b.Input("x", {1, 8, h, w}).Init("w1", {64, 8, 3, 3}, testing::RandomVector(64 * 8 * 9, 11));
  b.Init("w2", {64, 64, 3, 3}, testing::RandomVector(64 * 64 * 9, 12))
      .Init("b2", {64}, testing::RandomVector(64, 13));
  testing::SetInts(b.Node("Conv", {"x", "w1"}, {"c1"}, "narrow"), "pads", {1, 1, 1, 1});
  testing::SetInts(b.Node("Conv", {"c1", "w2", "b2"}, {"y"}, "wide"), "pads", {1, 0, 1, 0});
  b.Output("y");
  CompileOptions options;
  options.winograd = winograd;
  options.winograd_tile = tile;
  const CompileResult r = CompileModel(b.model(), options);
  EXPECT_TRUE(r.ok) << r.error;
  return {r.model, r.report};
}

void ExpectWidePacking(const WinogradBuild& built, fb::WeightPacking packing) {
  const fb::Model* m = testing::ModelOf(built.model);
  const fb::Operator* wide = m->operators()->Get(1);
  EXPECT_STREQ(wide->name()->c_str(), "wide");
  EXPECT_EQ(wide->options_as_ConvOptions()->packing(), packing);
  const int alpha = packing == fb::WeightPacking::Winograd4x3   ? 6
                    : packing == fb::WeightPacking::Winograd2x3 ? 4
                                                                : 0;
  const fb::Tensor* u = m->tensors()->Get(wide->inputs()->Get(1));
  if (alpha != 0)
    EXPECT_EQ(std::vector<int>(u->shape()->begin(), u->shape()->end()),
              (std::vector<int>{alpha, alpha, 64, 64}));
  EXPECT_EQ(m->operators()->Get(0)->options_as_ConvOptions()->packing(), fb::WeightPacking::Plain);
  EXPECT_EQ(built.report.winograd_convs, alpha != 0 ? 1 : 0);
  EXPECT_EQ(built.report.winograd43_convs, alpha == 6 ? 1 : 0);
  if (alpha != 0) {
    EXPECT_TRUE(built.report.verified);
    EXPECT_LT(built.report.verify_max_rel_error, alpha == 6 ? 2e-5 : 1e-5);
  }
}

TEST(Writer, WinogradFiltersForWideThreeByThreeConvs) {
  ExpectWidePacking(BuildWinogradNet(true, 0, 10, 9), fb::WeightPacking::Winograd2x3);  // 10×7 out
  ExpectWidePacking(BuildWinogradNet(true, 0, 16, 17),
                    fb::WeightPacking::Winograd4x3);  // 16×15 out
  ExpectWidePacking(BuildWinogradNet(true, 4, 10, 9), fb::WeightPacking::Winograd4x3);
  ExpectWidePacking(BuildWinogradNet(true, 2, 16, 17), fb::WeightPacking::Winograd2x3);
  ExpectWidePacking(BuildWinogradNet(false, 0, 10, 9), fb::WeightPacking::Plain);
  ExpectWidePacking(BuildWinogradNet(false, 4, 16, 17), fb::WeightPacking::Plain);
}

// A 1×1 conv of `cin` → `cout` channels on an h × w plane, then a 1×1 conv with a fused ReLU
// that has a bias; compiled with transposed pointwise weights on or off. Returns the two packings.
std::pair<fb::WeightPacking, fb::WeightPacking> PointwisePackings(int64_t cout, int64_t h,
                                                                  int64_t w, bool transposed,
                                                                  int64_t cin = 24) {
  OnnxBuilder b;
  b.Input("x", {1, cin, h, w}).Init("w1", {cout, cin, 1, 1}, testing::RandomVector(cout * cin, 21));
  b.Init("w2", {20, cout, 1, 1}, testing::RandomVector(20 * cout, 22))
      .Init("b2", {20}, testing::RandomVector(20, 23));
  b.Node("Conv", {"x", "w1"}, {"c1"}, "first");
  b.Node("Conv", {"c1", "w2", "b2"}, {"c2"}, "second");
  b.Node("Relu", {"c2"}, {"y"}, "relu");
  b.Output("y");
  CompileOptions options;
  options.transposed_weights = transposed;
  const CompileResult r = CompileModel(b.model(), options);
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return {fb::WeightPacking::Plain, fb::WeightPacking::Plain};
  const fb::Model* m = testing::ModelOf(r.model);
  const auto packing = [&](size_t i) {
    return m->operators()->Get(i)->options_as_ConvOptions()->packing();
  };
  const int transposed_convs =
      (packing(0) == fb::WeightPacking::Transposed) + (packing(1) == fb::WeightPacking::Transposed);
  EXPECT_EQ(r.report.transposed_convs, transposed_convs);
  EXPECT_EQ(r.report.winograd_convs, 0);
  if (transposed_convs > 0) {  // the transposed model was run against the unfolded graph
    EXPECT_TRUE(r.report.verified);
    EXPECT_LT(r.report.verify_max_rel_error, 1e-5);
    const fb::Tensor* wt = m->tensors()->Get(m->operators()->Get(0)->inputs()->Get(1));
    if (packing(0) == fb::WeightPacking::Transposed)
      EXPECT_EQ(std::vector<int>(wt->shape()->begin(), wt->shape()->end()),
                (std::vector<int>{static_cast<int>(cin), 1, 1, static_cast<int>(cout)}));
  }
  return {packing(0), packing(1)};
}

// Pointwise convs on planes of fewer than 49 pixels with at least 16 output channels store Wᵀ,
// and on 7² planes those that at least double 160 to 320 channels.
TEST(Writer, TransposedWeightsForPointwiseConvsOnSmallPlanes) {
  using P = std::pair<fb::WeightPacking, fb::WeightPacking>;
  const fb::WeightPacking t = fb::WeightPacking::Transposed, plain = fb::WeightPacking::Plain;
  EXPECT_EQ(PointwisePackings(32, 3, 3, true), (P{t, t}));
  EXPECT_EQ(PointwisePackings(32, 6, 8, true), (P{t, t}));                // 48 pixels
  EXPECT_EQ(PointwisePackings(32, 7, 7, true), (P{plain, plain}));        // 49 pixels: the GEMM
  EXPECT_EQ(PointwisePackings(48, 7, 7, true), (P{plain, plain}));        // 24 input channels
  EXPECT_EQ(PointwisePackings(320, 7, 7, true, 160), (P{t, plain}));      // doubles 160; 320 → 20
  EXPECT_EQ(PointwisePackings(640, 7, 7, true, 330), (P{plain, plain}));  // 330 input channels
  EXPECT_EQ(PointwisePackings(318, 7, 7, true, 160), (P{plain, plain}));  // does not double
  EXPECT_EQ(PointwisePackings(320, 8, 7, true, 160), (P{plain, plain}));  // 56 pixels
  EXPECT_EQ(PointwisePackings(12, 3, 3, true), (P{plain, t}));            // 12 outputs: no register
  EXPECT_EQ(PointwisePackings(32, 3, 3, false), (P{plain, plain}));
}

// A cin → 32 channel k×k stride-2 conv (pads k / 2) on an h² plane: its packing and scratch.
fb::WeightPacking StridedPacking(int64_t cin, int64_t k, int64_t h, uint64_t* scratch) {
  OnnxBuilder b;
  b.Input("x", {1, cin, h, h})
      .Init("w", {32, cin, k, k}, testing::RandomVector(32 * cin * k * k, 31));
  const int64_t pad = k / 2;
  onnx::NodeProto& conv = b.Node("Conv", {"x", "w"}, {"y"}, "strided");
  testing::SetInts(conv, "pads", {pad, pad, pad, pad});
  testing::SetInts(conv, "strides", {2, 2});
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return fb::WeightPacking::Plain;
  const fb::Operator* op = testing::ModelOf(r.model)->operators()->Get(0);
  *scratch = op->scratch_bytes();
  const fb::WeightPacking packing = op->options_as_ConvOptions()->packing();
  EXPECT_EQ(r.report.transposed_convs, packing == fb::WeightPacking::Transposed ? 1 : 0);
  if (packing == fb::WeightPacking::Transposed) EXPECT_TRUE(r.report.verified);
  return packing;
}

// Stride-2 convs of small networks store Wᵀ [Cin, kh, kw, Cout] and plan the padded input as
// scratch; 1×1 ones, those with fewer than 16 taps or more than 32² outputs do not.
TEST(Writer, TransposedWeightsForStrideTwoConvs) {
  uint64_t scratch = 0;
  EXPECT_EQ(StridedPacking(16, 3, 32, &scratch), fb::WeightPacking::Transposed);
  EXPECT_EQ(scratch, 16u * 33 * 33 * 4);  // the padded input plane the 16² outputs read: 33²
  EXPECT_EQ(StridedPacking(16, 1, 32, &scratch), fb::WeightPacking::Plain);
  EXPECT_EQ(StridedPacking(1, 3, 32, &scratch), fb::WeightPacking::Plain);  // 9 taps
  EXPECT_EQ(StridedPacking(2, 3, 32, &scratch), fb::WeightPacking::Transposed);
  EXPECT_EQ(StridedPacking(16, 3, 66, &scratch), fb::WeightPacking::Plain);  // 33² outputs
}

// A 16 → 32 channel 3×3 conv on h × w (pads 1: the same output plane), compiled with `options`.
CompileResult CompileSixteenChannelConv(const CompileOptions& options, int64_t h = 16,
                                        int64_t w = 16) {
  OnnxBuilder b;
  b.Input("x", {1, 16, h, w}).Init("w", {32, 16, 3, 3}, testing::RandomVector(32 * 16 * 9, 11));
  testing::SetInts(b.Node("Conv", {"x", "w"}, {"y"}, "conv"), "pads", {1, 1, 1, 1});
  b.Output("y");
  return CompileModel(b.model(), options);
}

// 16 to 63 channels take F(4,3) by default only on planes of at least 14² whose tile rows fill
// whole registers (4, 8, 16 or 64·k tiles: ResNet-8's 32² and 16² layers), else F(2,3): 28 wide
// (7 tiles a row), 20 wide (5), 12² (under 14²), 16 × 12 (under 14 rows).
TEST(Writer, WinogradBelowSixtyFourChannelsByRowWidth) {
  struct Case {
    int64_t h, w;
    fb::WeightPacking packing;
  };
  const Case cases[] = {
      {16, 16, fb::WeightPacking::Winograd4x3}, {32, 32, fb::WeightPacking::Winograd4x3},
      {14, 64, fb::WeightPacking::Winograd4x3}, {28, 28, fb::WeightPacking::Winograd2x3},
      {20, 20, fb::WeightPacking::Winograd2x3}, {12, 12, fb::WeightPacking::Winograd2x3},
      {12, 16, fb::WeightPacking::Winograd2x3}};
  for (const Case& c : cases) {
    const CompileResult r = CompileSixteenChannelConv(CompileOptions{}, c.h, c.w);
    ASSERT_TRUE(r.ok) << r.error;
    const fb::Model* m = testing::ModelOf(r.model);
    EXPECT_EQ(m->operators()->Get(0)->options_as_ConvOptions()->packing(), c.packing)
        << c.h << " x " << c.w;
    EXPECT_EQ(r.report.winograd_convs, 1);
    EXPECT_EQ(r.report.winograd43_convs, c.packing == fb::WeightPacking::Winograd4x3 ? 1 : 0)
        << c.h << " x " << c.w;
    EXPECT_TRUE(r.report.verified);
  }
}

// winograd_min_channels (--winograd-min-channels) moves the threshold: at 17 the 16-channel conv
// keeps plain weights and plans a smaller arena; below 1 is refused, naming the model.
TEST(Writer, WinogradMinChannelsMovesTheThreshold) {
  CompileOptions options;
  options.winograd_min_channels = 17;
  const CompileResult plain = CompileSixteenChannelConv(options);
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_EQ(testing::ModelOf(plain.model)->operators()->Get(0)->options_as_ConvOptions()->packing(),
            fb::WeightPacking::Plain);
  EXPECT_EQ(plain.report.winograd_convs, 0);
  const CompileResult winograd = CompileSixteenChannelConv(CompileOptions{});
  ASSERT_TRUE(winograd.ok) << winograd.error;
  EXPECT_LT(testing::ModelOf(plain.model)->arena_bytes(),
            testing::ModelOf(winograd.model)->arena_bytes());
  options.winograd_min_channels = 0;
  const CompileResult refused = CompileSixteenChannelConv(options);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("Winograd from 0 channels"), std::string::npos) << refused.error;
}

TEST(Writer, WinogradTileOtherThanTwoOrFourIsRefused) {
  OnnxBuilder b;
  b.Input("x", {1, 64, 8, 8}).Init("w", {64, 64, 3, 3}, testing::RandomVector(64 * 64 * 9, 11));
  testing::SetInts(b.Node("Conv", {"x", "w"}, {"y"}, "conv"), "pads", {1, 1, 1, 1});
  b.Output("y");
  CompileOptions options;
  options.winograd_tile = 3;
  const CompileResult r = CompileModel(b.model(), options);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("Winograd tile 3"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace edgefold::compiler
