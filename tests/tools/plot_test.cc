// inspect's pictures: the memory plot's bars (lifetimes, offsets) on a hand-built model, the
// PNG decoded by libpng (an independent decoder) with bars at the expected pixels, the SVG's
// rectangles, and the DOT graph's nodes and edges (parsed by Graphviz when installed).
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "dot_export.h"
#include "memory_plot.h"
#include "plot_test_model.h"
#include "png_test_util.h"

namespace edgefold::tools {
namespace {

class PlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = testing::BuildPlotTestModel();
    flatbuffers::Verifier v(bytes_.data(), bytes_.size());
    ASSERT_TRUE(fb::VerifyModelBuffer(v));
    model_ = fb::GetModel(bytes_.data());
    std::string error;
    ASSERT_TRUE(BuildMemoryPlot(*model_, "test", &plot_, &error)) << error;
  }
  std::vector<uint8_t> bytes_;
  const fb::Model* model_ = nullptr;
  MemoryPlot plot_;
};

TEST_F(PlotTest, BarsCoverEachTensorLifetime) {
  ASSERT_EQ(plot_.bars.size(), 5u);  // x, h, a, y + one scratch; W1 is a constant
  struct Want {
    const char* label;
    int first, last;
    uint64_t offset, bytes;
    bool scratch;
  };
  const Want want[] = {{"x", 0, 0, 0, 64, false},
                       {"h", 0, 1, 128, 128, false},
                       {"a", 1, 2, 0, 128, false},
                       {"y", 2, 2, 128, 128, false},
                       {"scratch #0", 0, 0, 64, 64, true}};
  for (size_t i = 0; i < 5; ++i) {
    const PlotBar& b = plot_.bars[i];
    EXPECT_EQ(b.label, want[i].label);
    EXPECT_EQ(b.first_step, want[i].first) << b.label;
    EXPECT_EQ(b.last_step, want[i].last) << b.label;
    EXPECT_EQ(b.offset_bytes, want[i].offset) << b.label;
    EXPECT_EQ(b.size_bytes, want[i].bytes) << b.label;
    EXPECT_EQ(b.scratch, want[i].scratch) << b.label;
  }
  EXPECT_EQ(plot_.num_steps, 3);
  EXPECT_EQ(plot_.arena_bytes, 256u);
}

TEST_F(PlotTest, PngHasBarsAtExpectedPixels) {
  const std::vector<uint8_t> png = RenderPng(plot_, 1000, 600);
  DecodedPng img;
  std::string error;
  ASSERT_TRUE(DecodePngWithLibpng(png, &img, &error)) << error;
  ASSERT_EQ(img.width, 1000);
  ASSERT_EQ(img.height, 600);
  // Plot area: x from 90 to 980 (3 steps of 296.7 px); y from 550 (offset 0) up to 40
  // (256 B + 5% headroom = 268 B), so 1.903 px per byte.
  const PlotFrame f = FrameFor(plot_, 1000, 600);
  EXPECT_NEAR(f.X(1), 90 + 890.0 / 3, 1e-9);
  EXPECT_NEAR(f.Y(128), 550 - 128 * 510.0 / 268, 1e-9);
  // A pixel inside each bar, near its bottom-left corner (labels sit mid-bar).
  EXPECT_EQ(img.At(95, 545), BarColor(plot_, 0));         // x: step 0, bytes 0..64
  EXPECT_EQ(img.At(95, 545 - 128), BarColor(plot_, 4));   // scratch: step 0, 64..128
  EXPECT_EQ(img.At(95, 545 - 250), BarColor(plot_, 1));   // h: steps 0..1, 128..256
  EXPECT_EQ(img.At(400, 545 - 250), BarColor(plot_, 1));  // h in step 1
  EXPECT_EQ(img.At(400, 545), BarColor(plot_, 2));        // a: steps 1..2, 0..128
  EXPECT_EQ(img.At(700, 545 - 250), BarColor(plot_, 3));  // y: step 2, 128..256
  EXPECT_EQ(BarColor(plot_, 4), 0xa0a0a0u);               // scratch is grey
  // Headroom above the planned total is background; the total line is red.
  EXPECT_EQ(img.At(300, 45), 0xffffffu);
  const int total_y = static_cast<int>(f.Y(256) + 0.5);
  EXPECT_EQ(img.At(f.left + 2, total_y), 0xd62728u);
}

TEST_F(PlotTest, SvgHasOneRectPerBarWithTooltip) {
  const std::string svg = RenderSvg(plot_, 1000, 600);
  const std::regex title("<title>");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(svg.begin(), svg.end(), title), std::sregex_iterator()),
      5);
  EXPECT_NE(svg.find("<title>h: [1,32] 128 B @128, steps 0-1</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("planned total 256 B"), std::string::npos);
  EXPECT_EQ(svg.rfind("</svg>"), svg.size() - 7);
}

TEST_F(PlotTest, WriteRejectsUnknownExtension) {
  std::string error;
  EXPECT_FALSE(WriteMemoryPlot(plot_, "/tmp/plan.jpg", &error));
  EXPECT_NE(error.find(".svg or .png"), std::string::npos);
}

TEST_F(PlotTest, BadTensorIndexIsAnErrorNamingTheOp) {
  // Point op1's input at tensor 99: the plot must refuse, naming the op.
  auto m = fb::UnPackModel(bytes_.data());
  m->operators[1]->inputs = {99};
  flatbuffers::FlatBufferBuilder b;
  fb::FinishModelBuffer(b, fb::Model::Pack(b, m.get()));
  MemoryPlot plot;
  std::string error;
  EXPECT_FALSE(BuildMemoryPlot(*fb::GetModel(b.GetBufferPointer()), "bad", &plot, &error));
  EXPECT_NE(error.find("op #1 'act' input refers to tensor 99"), std::string::npos) << error;
  EXPECT_NE(ModelToDot(*fb::GetModel(b.GetBufferPointer()), "bad").find("bad tensor index 99"),
            std::string::npos);
}

TEST_F(PlotTest, DotHasOpNodesAndTensorEdges) {
  const std::string dot = ModelToDot(*model_, "test");
  for (const char* s :
       {"op0 [", "op1 [", "op2 [", "in0 [", "out0 [", "in0 -> op0", "op0 -> op1", "op1 -> op2",
        "op2 -> out0", "#0 Gemm\\nfc1\\nout h [1, 32] 128 B", "weights 2.0 KiB", "scratch 64 B"}) {
    EXPECT_NE(dot.find(s), std::string::npos) << s << "\n" << dot;
  }
  EXPECT_EQ(dot.find("W1 ["), std::string::npos) << "constants are not edges";
#ifdef EDGEFOLD_DOT
  const std::string path = ::testing::TempDir() + "plot_test.dot";
  std::ofstream(path) << dot;
  const std::string cmd = std::string(EDGEFOLD_DOT) + " -Tsvg " + path + " -o " + path + ".svg";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "Graphviz rejected:\n" << dot;
#endif
}

}  // namespace
}  // namespace edgefold::tools
