// The compiler's NHWC choice (lower/conv_layout.cc): a depthwise conv between a conv that can
// write channels innermost (transposed weights: stride 2, pointwise) and pointwise convs that
// read it runs NHWC with its weights stored Wᵀ [1, kh, kw, C], and both its tensors are NHWC;
// every other tensor stays NCHW (a second reader, too few channels, a 7×7 window, a 3×3 conv
// after it, transposed weights off). The NHWC model is verified against the unfolded graph.
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using testing::OnnxBuilder;

constexpr bool kNchw = false, kNhwc = true;

struct OpLayout {
  bool x, y;                  // NHWC
  fb::WeightPacking packing;  // Transposed for each NHWC form
  bool operator==(const OpLayout& o) const { return x == o.x && y == o.y && packing == o.packing; }
};
std::ostream& operator<<(std::ostream& os, const OpLayout& l) {
  return os << "{x " << static_cast<int>(l.x) << ", y " << static_cast<int>(l.y) << ", packing "
            << static_cast<int>(l.packing) << "}";
}

// Each Conv op's layouts and packing, in op order.
std::vector<OpLayout> ConvLayouts(const CompileResult& r) {
  std::vector<OpLayout> v;
  const fb::Model* m = testing::ModelOf(r.model);
  for (const fb::Operator* op : *m->operators())
    if (op->type() == fb::OpType::Conv) {
      const fb::WeightPacking p = op->options_as_ConvOptions()->packing();
      const bool x =
          p == fb::WeightPacking::TransposedNhwcIn || p == fb::WeightPacking::TransposedNhwc;
      const bool y =
          p == fb::WeightPacking::TransposedNhwcOut || p == fb::WeightPacking::TransposedNhwc;
      v.push_back({x, y, x || y ? fb::WeightPacking::Transposed : p});
    }
  return v;
}

// x [1, 3, 50, 10] → 3×3 stride-2 conv (c channels, 25 × 5) → depthwise k×k → pointwise c → c
// → depthwise 5×5 stride 2 → pointwise c → 24 → global pool. `extra`: a second reader of the
// first conv's output (an Add into the first pointwise's output).
CompileResult BuildChain(int64_t c, int64_t k, bool extra, bool transposed = true) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 50, 10});
  b.Init("w0", {c, 3, 3, 3}, testing::RandomVector(c * 27, 1));
  b.Init("w1", {c, 1, k, k}, testing::RandomVector(c * k * k, 2));
  b.Init("w2", {c, c, 1, 1}, testing::RandomVector(c * c, 3));
  b.Init("w3", {c, 1, 5, 5}, testing::RandomVector(c * 25, 4));
  b.Init("w4", {24, c, 1, 1}, testing::RandomVector(24 * c, 5));
  onnx::NodeProto& first = b.Node("Conv", {"x", "w0"}, {"c0"}, "first");
  testing::SetInts(first, "strides", {2, 2});
  testing::SetInts(first, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c0"}, {"r0"}, "relu0");
  onnx::NodeProto& dw1 = b.Node("Conv", {"r0", "w1"}, {"c1"}, "dw1");
  testing::SetInts(dw1, "pads", {k / 2, k / 2, k / 2, k / 2});
  testing::SetInt(dw1, "group", c);
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  b.Node("Conv", {"r1", "w2"}, {"c2"}, "pw2");
  if (extra) b.Node("Add", {"c2", "r0"}, {"a2"}, "add");
  onnx::NodeProto& dw3 = b.Node("Conv", {extra ? "a2" : "c2", "w3"}, {"c3"}, "dw3");
  testing::SetInts(dw3, "pads", {2, 2, 2, 2});
  testing::SetInts(dw3, "strides", {2, 2});
  testing::SetInt(dw3, "group", c);
  b.Node("Conv", {"c3", "w4"}, {"c4"}, "pw4");
  b.Node("GlobalAveragePool", {"c4"}, {"y"}, "gap");
  b.Output("y");
  CompileOptions options;
  options.transposed_weights = transposed;
  return CompileModel(b.model(), options);
}

TEST(ConvLayout, DepthwiseChainRunsChannelsInnermost) {
  const CompileResult r = BuildChain(40, 3, false);
  ASSERT_TRUE(r.ok) << r.error;
  const auto t = fb::WeightPacking::Transposed;
  EXPECT_EQ(ConvLayouts(r), (std::vector<OpLayout>{{kNchw, kNhwc, t},
                                                   {kNhwc, kNhwc, t},
                                                   {kNhwc, kNhwc, t},
                                                   {kNhwc, kNhwc, t},
                                                   {kNhwc, kNchw, t}}));
  const fb::Model* m = testing::ModelOf(r.model);
  const fb::Tensor* wt = m->tensors()->Get(m->operators()->Get(1)->inputs()->Get(1));
  EXPECT_EQ(std::vector<int>(wt->shape()->begin(), wt->shape()->end()),
            (std::vector<int>{1, 3, 3, 40}));
  EXPECT_TRUE(r.report.verified);
  EXPECT_LT(r.report.verify_max_rel_error, 1e-5);
}

TEST(ConvLayout, OtherTensorsStayNchw) {
  const auto p = fb::WeightPacking::Plain, t = fb::WeightPacking::Transposed;
  // The first conv's output has a second reader: the first depthwise stays NCHW; the second
  // depthwise reads the Add's output, not a conv's.
  CompileResult r = BuildChain(40, 3, true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(ConvLayouts(r), (std::vector<OpLayout>{{kNchw, kNchw, t},
                                                   {kNchw, kNchw, p},
                                                   {kNchw, kNchw, p},
                                                   {kNchw, kNchw, p},
                                                   {kNchw, kNchw, t}}));  // 39 pixels: Wᵀ
  // Fewer than 16 channels: no conv writes NHWC (nor stores Wᵀ).
  r = BuildChain(8, 3, false);
  ASSERT_TRUE(r.ok) << r.error;
  for (const OpLayout& l : ConvLayouts(r)) EXPECT_EQ(l.x == kNhwc || l.y == kNhwc, false) << l;
  // A 7×7 depthwise window stays NCHW; the 5×5 one after it still runs NHWC.
  r = BuildChain(40, 7, false);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(ConvLayouts(r), (std::vector<OpLayout>{{kNchw, kNchw, t},
                                                   {kNchw, kNchw, p},
                                                   {kNchw, kNhwc, t},
                                                   {kNhwc, kNhwc, t},
                                                   {kNhwc, kNchw, t}}));
  // Transposed weights off (--no-transposed-weights): no NHWC at all.
  r = BuildChain(40, 3, false, false);
  ASSERT_TRUE(r.ok) << r.error;
  for (const OpLayout& l : ConvLayouts(r)) EXPECT_EQ(l, (OpLayout{kNchw, kNchw, p}));
}

}  // namespace
}  // namespace edgefold::compiler
