// Resize/Upsample lowering: the per-axis scale and offset written for each coordinate mode, the
// legacy (opset < 11) semantics kept across the version converter, sizes computed by shape
// arithmetic folded to constants, and the refusals naming the node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "edgefold_compiler/compiler.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using ::testing::HasSubstr;
using testing::OnnxBuilder;

// x[1,2,3,4] → Resize(scales) "rs" → y, opset 13.
OnnxBuilder ResizeModel(const std::vector<float>& scales, const std::string& mode,
                        const std::string& ctm) {
  OnnxBuilder b(13);
  b.Input("x", {1, 2, 3, 4}).Init("roi", {0}, {}).Init("scales", {4}, scales);
  onnx::NodeProto& n = b.Node("Resize", {"x", "roi", "scales"}, {"y"}, "rs");
  testing::SetString(n, "mode", mode);
  testing::SetString(n, "coordinate_transformation_mode", ctm);
  b.Output("y");
  return b;
}

const fb::ResizeOptions* OnlyResize(const CompileResult& r) {
  const auto ops = testing::OpsOfType(testing::ModelOf(r.model), fb::OpType::Resize);
  return ops.size() == 1 ? ops[0]->options_as_ResizeOptions() : nullptr;
}

TEST(ResizeLowering, CoordinateModesBecomeScaleAndOffset) {
  struct Case {
    const char* ctm;
    double scale_w, offset_w;
  } cases[] = {{"half_pixel", 0.5, -0.25},
               {"pytorch_half_pixel", 0.5, -0.25},
               {"asymmetric", 0.5, 0.0},
               {"align_corners", 3.0 / 7.0, 0.0},
               {"tf_half_pixel_for_nearest", 0.5, 0.25}};
  for (const Case& c : cases) {
    const CompileResult r =
        CompileModel(ResizeModel({1, 1, 2, 2}, "linear", c.ctm).model(), CompileOptions());
    ASSERT_TRUE(r.ok) << c.ctm << ": " << r.error;
    const fb::ResizeOptions* o = OnlyResize(r);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->mode(), fb::ResizeMode::Linear);
    EXPECT_NEAR(o->scales()->Get(1), c.scale_w, 1e-12) << c.ctm;
    EXPECT_NEAR(o->offsets()->Get(1), c.offset_w, 1e-12) << c.ctm;
  }
}

TEST(ResizeLowering, RefusalsNameTheNode) {
  struct Case {
    std::vector<float> scales;
    const char *mode, *ctm, *message;
  } cases[] = {
      {{1, 1, 2, 2}, "cubic", "half_pixel", "node 'rs' (op 'Resize')"},
      {{1, 1, 2, 2}, "cubic", "half_pixel", "mode 'cubic' is unsupported"},
      {{1, 1, 2, 2},
       "linear",
       "tf_crop_and_resize",
       "'tf_crop_and_resize' (roi-based crop) is unsupported"},
      {{1, 2, 2, 2},
       "nearest",
       "asymmetric",
       "resizes axis 1 (2 → 4); only the last two (spatial) axes"},
      {{2, 1, 1, 1}, "nearest", "asymmetric", "resizes axis 0"},
  };
  for (const Case& c : cases) {
    const CompileResult r =
        CompileModel(ResizeModel(c.scales, c.mode, c.ctm).model(), CompileOptions());
    ASSERT_FALSE(r.ok) << c.message;
    EXPECT_THAT(r.error, HasSubstr(c.message));
    EXPECT_THAT(r.error, HasSubstr("'rs'"));
  }
}

TEST(ResizeLowering, DynamicScalesAreRefused) {
  OnnxBuilder b(13);
  b.Input("x", {1, 2, 3, 4}).Input("s", {4}).Init("roi", {0}, {});
  b.Node("Resize", {"x", "roi", "s"}, {"y"}, "dyn");
  b.Output("y");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("'dyn'"));
}

// Opset 9 Upsample and opset 10 Resize sample asymmetrically with floor; the converter's
// Resize-11 default would be half_pixel.
TEST(ResizeLowering, LegacyUpsampleKeepsAsymmetricFloor) {
  for (int opset : {9, 10}) {
    OnnxBuilder b(opset);
    b.Input("x", {1, 1, 2, 3}).Init("scales", {4}, {1, 1, 2, 2});
    onnx::NodeProto& n = b.Node(opset == 9 ? "Upsample" : "Resize", {"x", "scales"}, {"y"}, "up");
    testing::SetString(n, "mode", "linear");
    b.Output("y");
    const CompileResult r = CompileModel(b.model(), CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    const fb::ResizeOptions* o = OnlyResize(r);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->nearest_mode(), fb::NearestMode::Floor);
    EXPECT_EQ(o->offsets()->Get(0), 0.0) << "opset " << opset;
    EXPECT_EQ(o->scales()->Get(1), 0.5);
    // asymmetric linear 3 → 6 columns: s = i/2, the last clamps to x[2].
    const std::vector<float> x = {0, 2, 4, 10, 12, 14};
    const auto y = testing::RunEfb(r.model, {x});
    ASSERT_EQ(y.at(0).size(), 24u);
    const std::vector<float> row0 = {0, 1, 2, 3, 4, 4};
    for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y[0][i], row0[i]) << i;
    EXPECT_FLOAT_EQ(y[0][6], 5.0f);  // row 1 (s = ½): halfway between the two input rows
  }
}

// PyTorch's F.interpolate(size=other.shape[-2:]): Shape → Slice → Concat → Resize(sizes).
TEST(ResizeLowering, SizesFromShapeArithmeticAreFolded) {
  OnnxBuilder b(13);
  b.Input("x", {1, 1, 2, 2}).Input("ref", {1, 1, 4, 6});
  b.InitInt64("start", {1}, {2}).InitInt64("end", {1}, {4}).InitInt64("nc", {2}, {1, 1});
  b.Init("roi", {0}, {}).Init("no_scales", {0}, {});
  b.Node("Shape", {"ref"}, {"shape"});
  b.Node("Slice", {"shape", "start", "end"}, {"hw"});
  testing::SetInt(b.Node("Concat", {"nc", "hw"}, {"sizes"}), "axis", 0);
  onnx::NodeProto& n = b.Node("Resize", {"x", "roi", "no_scales", "sizes"}, {"y"}, "fpn_up");
  testing::SetString(n, "coordinate_transformation_mode", "asymmetric");
  testing::SetString(n, "nearest_mode", "floor");
  b.Node("Add", {"y", "ref"}, {"z"});
  b.Output("z");
  const CompileResult r = CompileModel(b.model(), CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> x = {1, 2, 3, 4};
  const auto z = testing::RunEfb(r.model, {x, std::vector<float>(24, 0.0f)});
  const std::vector<float> want = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                                   3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4};
  ASSERT_EQ(z.at(0).size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(z[0][i], want[i]) << i;
}

}  // namespace
}  // namespace edgefold::compiler
