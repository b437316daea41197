// PNG rendering of a MemoryPlot: the same frame as the SVG, rasterized on a Canvas.
#include "memory_plot.h"
#include "plot_text.h"
#include "png_writer.h"
#include "raster.h"

namespace edgefold::tools {
namespace {

constexpr uint32_t kWhite = 0xffffff, kAxis = 0x333333, kGrid = 0xe4e4e4;
constexpr uint32_t kTotal = 0xd62728, kLowerBound = 0x1f77b4;

int Px(double v) { return static_cast<int>(v + 0.5); }

void DrawAxes(Canvas& c, const PlotFrame& f) {
  const int x0 = Px(f.X(0)), x1 = Px(f.X(f.num_steps)), y0 = Px(f.Y(0));
  for (uint64_t b : AxisBytes(f.y_max_bytes)) {
    const int y = Px(f.Y(double(b)));
    c.FillRect(x0, y, x1, y + 1, kGrid);
    const std::string label = FormatBytes(b);
    c.Text(x0 - 6 - Canvas::TextWidth(label), y - 3, label, kAxis);
  }
  for (int step : AxisSteps(f.num_steps)) {
    const std::string label = std::to_string(step);
    c.Text(Px(f.X(step + 0.5)) - Canvas::TextWidth(label) / 2, y0 + 6, label, kAxis);
  }
  c.Text((x0 + x1 - Canvas::TextWidth("op step")) / 2, f.height - 16, "op step", kAxis);
  c.Text(4, f.top - 14, "arena offset", kAxis);
}

// A dashed line across the plot; `phase_px` lets two coinciding lines (a plan that meets its
// lower bound) show as alternating dashes of both colours.
void DrawLine(Canvas& c, const PlotFrame& f, uint64_t bytes, uint32_t color,
              const std::string& label, int label_dy, int phase_px) {
  const int y = Px(f.Y(double(bytes)));
  const int x1 = Px(f.X(f.num_steps));
  c.HLine(Px(f.X(0)), x1, y, color, 6, phase_px);
  const int w = Canvas::TextWidth(label);
  c.FillRect(x1 - w - 6, y + label_dy - 1, x1 - 2, y + label_dy + 8, kWhite);
  c.Text(x1 - w - 4, y + label_dy, label, color);
}

}  // namespace

std::vector<uint8_t> RenderPng(const MemoryPlot& plot, int width, int height) {
  const PlotFrame f = FrameFor(plot, width, height);
  Canvas c(width, height, kWhite);
  c.Text(f.left, 12, plot.title, kAxis, 2);
  DrawAxes(c, f);
  for (size_t i = 0; i < plot.bars.size(); ++i) {
    const BarBox r = BarRect(f, plot.bars[i]);
    // 1 px white gap on the right and top so neighbouring bars stay distinguishable.
    const int x0 = Px(r.x0), x1 = std::max(Px(r.x1) - 1, x0 + 1);
    const int y0 = Px(r.y0), y1 = std::max(Px(r.y1), Px(r.y0) + 1);
    c.FillRect(x0, y0 + (y1 - y0 > 2 ? 1 : 0), x1, y1, BarColor(plot, i));
    if (LabelFits(r, plot.bars[i].label, 6, 11)) {
      c.Text(x0 + 3, (y0 + y1) / 2 - 3, plot.bars[i].label, kWhite);
    }
  }
  c.StrokeRect(Px(f.X(0)) - 1, Px(f.Y(double(f.y_max_bytes))), Px(f.X(f.num_steps)) + 1,
               Px(f.Y(0)) + 1, kAxis);
  // Labels go above their line, unless the two lines are so close the labels would collide.
  const bool close = f.Y(double(plot.lower_bound_bytes)) - f.Y(double(plot.arena_bytes)) < 12;
  DrawLine(c, f, plot.arena_bytes, kTotal, "planned total " + FormatBytes(plot.arena_bytes), -10,
           0);
  DrawLine(c, f, plot.lower_bound_bytes, kLowerBound,
           "lower bound " + FormatBytes(plot.lower_bound_bytes), close ? 4 : -10, 6);
  return EncodePng(c.rgb(), width, height);
}

}  // namespace edgefold::tools
