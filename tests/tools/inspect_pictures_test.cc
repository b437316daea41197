// `edgefold inspect --dot/--memory-plot` end to end on the digits CNN: compile with the CLI,
// draw, then check the PNG (decoded by libpng) against the plan read back from the .efb: every
// bar big enough to sample shows its colour at its own offset and steps.
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "file_io.h"
#include "memory_plot.h"
#include "plot_text.h"
#include "png_test_util.h"

namespace edgefold::tools {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

class InspectPicturesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = ::testing::TempDir() + "inspect_pictures/";
    std::system(("mkdir -p " + dir_).c_str());
    const std::string compile = std::string(EDGEFOLD_CLI) + " compile " + EDGEFOLD_DIGITS_ONNX +
                                " -o " + dir_ + "digits.efb > " + dir_ + "compile.log";
    compiled_ = std::system(compile.c_str()) == 0;
  }
  int Inspect(const std::string& flags) {
    return std::system((std::string(EDGEFOLD_CLI) + " inspect " + dir_ + "digits.efb " + flags +
                        " > " + dir_ + "inspect.log 2>&1")
                           .c_str());
  }
  static std::string dir_;
  static bool compiled_;
};
std::string InspectPicturesTest::dir_;
bool InspectPicturesTest::compiled_ = false;

TEST_F(InspectPicturesTest, PngShowsEveryTensorAtItsOffset) {
  ASSERT_TRUE(compiled_);
  ASSERT_EQ(Inspect("--memory-plot " + dir_ + "plan.png"), 0) << ReadAll(dir_ + "inspect.log");
  const std::string png = ReadAll(dir_ + "plan.png");
  DecodedPng img;
  std::string error;
  ASSERT_TRUE(DecodePngWithLibpng(std::vector<uint8_t>(png.begin(), png.end()), &img, &error))
      << error;
  EXPECT_EQ(img.width, 1000);
  EXPECT_EQ(img.height, 600);

  AlignedBuffer efb;
  ASSERT_TRUE(ReadFileAligned(dir_ + "digits.efb", &efb, &error)) << error;
  MemoryPlot plot;
  ASSERT_TRUE(BuildMemoryPlot(*fb::GetModel(efb.data.get()), "", &plot, &error)) << error;
  ASSERT_GT(plot.bars.size(), 5u);
  const PlotFrame f = FrameFor(plot, 1000, 600);
  const double total_y = f.Y(double(plot.arena_bytes)),
               bound_y = f.Y(double(plot.lower_bound_bytes));
  int sampled = 0;
  for (size_t i = 0; i < plot.bars.size(); ++i) {
    const BarBox r = BarRect(f, plot.bars[i]);
    const int x = static_cast<int>(r.x0) + 1, y = static_cast<int>(r.y1) - 2;
    if (r.y1 - r.y0 < 4 || r.x1 - r.x0 < 4) continue;                      // too thin to sample
    if (std::abs(y - total_y) < 3 || std::abs(y - bound_y) < 3) continue;  // under a dashed line
    EXPECT_EQ(img.At(x, y), BarColor(plot, i)) << plot.bars[i].label << " at " << x << "," << y;
    ++sampled;
  }
  EXPECT_GE(sampled, 5);
}

TEST_F(InspectPicturesTest, SvgAndDotAreWritten) {
  ASSERT_TRUE(compiled_);
  ASSERT_EQ(Inspect("--memory-plot " + dir_ + "plan.svg --dot " + dir_ + "graph.dot"), 0)
      << ReadAll(dir_ + "inspect.log");
  const std::string svg = ReadAll(dir_ + "plan.svg"), dot = ReadAll(dir_ + "graph.dot");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("planned total"), std::string::npos);
  EXPECT_EQ(dot.rfind("digraph edgefold {", 0), 0u);
  EXPECT_NE(dot.find("Conv"), std::string::npos);
  EXPECT_NE(dot.find("-> out0"), std::string::npos);
#ifdef EDGEFOLD_DOT
  const std::string cmd =
      std::string(EDGEFOLD_DOT) + " -Tpng " + dir_ + "graph.dot -o " + dir_ + "graph.png";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
#endif
}

TEST_F(InspectPicturesTest, BadPlotPathIsAnError) {
  ASSERT_TRUE(compiled_);
  EXPECT_NE(Inspect("--memory-plot " + dir_ + "plan.bmp"), 0);
  EXPECT_NE(ReadAll(dir_ + "inspect.log").find("must end in .svg or .png"), std::string::npos);
  EXPECT_NE(Inspect("--dot /nonexistent-dir/graph.dot"), 0);
}

}  // namespace
}  // namespace edgefold::tools
