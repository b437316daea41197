// Planned views (plan/tensor_views.h): a ShuffleNetV2 unit (Concat → Reshape → Transpose →
// Reshape → two Slices → Concat) plans its Reshape outputs on their inputs, its channel Slices
// inside their input and the branch outputs inside the Concat; the output is bit for bit that of
// the same model with every tensor in memory of its own (share_views off); views stop at graph inputs/outputs, at strided or misaligned runs.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::OnnxBuilder;

// x [1, 8, s, s] → a = conv(x), b = conv(x) → c = Concat(a, b) → shuffle (Reshape, Transpose,
// Reshape) → halves h0, h1 (Slice) → y = Concat(h0, conv(h1)) → y2 = Reshape(y) (graph output).
onnx::ModelProto ShuffleUnit(int64_t s) {
  OnnxBuilder b;
  b.Input("x", {1, 8, s, s});
  for (const char* w : {"wa", "wb", "wc"}) b.Init(w, {8, 8, 1, 1}, testing::RandomVector(64, w[1]));
  b.InitInt64("shape5", {5}, {1, 2, 8, s, s}).InitInt64("shape4", {4}, {1, 16, s, s});
  b.InitInt64("flat", {2}, {1, 16 * s * s});
  b.Node("Conv", {"x", "wa"}, {"a"}, "conv_a");
  b.Node("Conv", {"x", "wb"}, {"b"}, "conv_b");
  testing::SetInt(b.Node("Concat", {"a", "b"}, {"c"}, "concat1"), "axis", 1);
  b.Node("Reshape", {"c", "shape5"}, {"r5"}, "reshape5");
  testing::SetInts(b.Node("Transpose", {"r5"}, {"t5"}, "shuffle"), "perm", {0, 2, 1, 3, 4});
  b.Node("Reshape", {"t5", "shape4"}, {"r4"}, "reshape4");
  onnx::NodeProto& split = b.Node("Split", {"r4"}, {"h0", "h1"}, "split");
  testing::SetInt(split, "axis", 1);
  b.Node("Conv", {"h1", "wc"}, {"hc"}, "conv_c");
  testing::SetInt(b.Node("Concat", {"h0", "hc"}, {"y"}, "concat2"), "axis", 1);
  b.Node("Reshape", {"y", "flat"}, {"y2"}, "flatten");
  b.Output("y2");
  return b.model();
}

std::map<std::string, int64_t> Offsets(const std::vector<uint8_t>& efb) {
  std::map<std::string, int64_t> offsets;
  const fb::Model* m = testing::ModelOf(efb);
  for (const fb::Tensor* t : *m->tensors())
    if (t->name() != nullptr) offsets[t->name()->str()] = t->arena_offset();
  return offsets;
}

CompileOptions Views(bool on) {
  CompileOptions o;
  o.share_views = on;
  return o;
}

TEST(TensorViews, ShuffleUnitSharesAndMatchesCopies) {
  for (int64_t s :
       {8, 9}) {  // half the channels: 8 · 8² floats, 2 KiB (aligned); 8 · 9², 2592 B (not)
    SCOPED_TRACE("plane " + std::to_string(s));
    const CompileResult shared = CompileModel(ShuffleUnit(s), Views(true));
    ASSERT_TRUE(shared.ok) << shared.error;
    const CompileResult copied = CompileModel(ShuffleUnit(s), Views(false));
    ASSERT_TRUE(copied.ok) << copied.error;
    // r5, r4, h0, a (always); h1, b, hc (aligned halves only); none without views.
    EXPECT_EQ(shared.report.tensor_views, s == 8 ? 7 : 4);
    EXPECT_EQ(copied.report.tensor_views, 0);
    const std::map<std::string, int64_t> at = Offsets(shared.model);
    const int64_t half = 8 * s * s * 4;
    EXPECT_EQ(at.at("r5"), at.at("c"));
    EXPECT_EQ(at.at("r4"), at.at("t5"));
    EXPECT_EQ(at.at("a"), at.at("c"));
    if (half % 64 == 0) {
      EXPECT_EQ(at.at("b"), at.at("c") + half);
      EXPECT_EQ(at.at("h0"), at.at("r4"));
      EXPECT_EQ(at.at("h1"), at.at("r4") + half);
      EXPECT_EQ(at.at("hc"), at.at("y") + half);  // h0 is already a view of r4: copied into y
    } else {  // the second halves would start off the alignment: copied
      EXPECT_NE(at.at("h1"), at.at("r4") + half);
      EXPECT_NE(at.at("b"), at.at("c") + half);
    }
    EXPECT_NE(at.at("y2"), at.at("y"));  // a graph output keeps its own memory
    EXPECT_LE(shared.report.arena_bytes, copied.report.arena_bytes);
    const std::map<std::string, int64_t> own = Offsets(copied.model);
    EXPECT_NE(own.at("r5"), own.at("c"));
    for (uint32_t seed : {3u, 4u}) {
      const std::vector<float> x = testing::RandomVector(8 * s * s, seed, -2, 2);
      EXPECT_EQ(testing::RunEfb(shared.model, {x}).at(0), testing::RunEfb(copied.model, {x}).at(0));
    }
  }
}

// A strided Slice (every other channel) is a gather, not a run: copied.
TEST(TensorViews, StridedSliceIsCopied) {
  OnnxBuilder b;
  b.Input("x", {1, 8, 8, 8});
  b.Init("w", {8, 8, 1, 1}, testing::RandomVector(64, 9));
  b.InitInt64("starts", {1}, {0})
      .InitInt64("ends", {1}, {8})
      .InitInt64("axes", {1}, {1})
      .InitInt64("steps", {1}, {2});
  b.Node("Conv", {"x", "w"}, {"a"}, "conv");
  b.Node("Slice", {"a", "starts", "ends", "axes", "steps"}, {"s"}, "every_other");
  b.Node("Relu", {"s"}, {"y"}, "relu");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), Views(true));
  ASSERT_TRUE(r.ok) << r.error;
  const std::map<std::string, int64_t> at = Offsets(r.model);
  EXPECT_NE(at.at("s"), at.at("a"));
}

}  // namespace
}  // namespace edgefold::compiler
