// SVG rendering of a MemoryPlot: one <rect> per bar with a <title> tooltip, axes, and the
// planned-total and lower-bound lines.
#include <cstdio>

#include "memory_plot.h"
#include "plot_text.h"

namespace edgefold::tools {
namespace {

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string Fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

std::string Text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* extra = "") {
  return Fmt("<text x=\"%.1f\" y=\"%.1f\"", x, y) + " text-anchor=\"" + anchor + "\" " + extra +
         ">" + Escape(s) + "</text>\n";
}

std::string HLine(const PlotFrame& f, uint64_t bytes, const char* color, const std::string& label,
                  int phase_px, double label_dy) {
  const double y = f.Y(double(bytes));
  return Fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", f.X(0), y, f.X(f.num_steps),
             y) +
         " stroke=\"" + color + "\" stroke-width=\"1.5\" stroke-dasharray=\"6,6\"" +
         Fmt(" stroke-dashoffset=\"%.0f\"/>\n", phase_px) +
         Text(f.X(f.num_steps) - 4, y + label_dy, label, "end",
              (std::string("fill=\"") + color + "\"").c_str());
}

std::string Axes(const PlotFrame& f) {
  std::string s =
      Fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
          "stroke=\"#333\"/>\n",
          f.X(0), f.Y(double(f.y_max_bytes)), f.X(f.num_steps) - f.X(0),
          f.Y(0) - f.Y(double(f.y_max_bytes)));
  for (int step : AxisSteps(f.num_steps)) {
    s += Text(f.X(step + 0.5), f.Y(0) + 16, std::to_string(step), "middle");
  }
  for (uint64_t b : AxisBytes(f.y_max_bytes)) {
    s += Fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", f.X(0),
             f.Y(double(b)), f.X(f.num_steps), f.Y(double(b)));
    s += Text(f.X(0) - 6, f.Y(double(b)) + 4, FormatBytes(b), "end");
  }
  s += Text(f.X(f.num_steps / 2.0), f.height - 10, "op step", "middle");
  s += Text(14, f.Y(f.y_max_bytes / 2.0), "arena offset", "middle",
            Fmt("transform=\"rotate(-90 14 %.1f)\"", f.Y(f.y_max_bytes / 2.0)).c_str());
  return s;
}

}  // namespace

std::string RenderSvg(const MemoryPlot& plot, int width, int height) {
  const PlotFrame f = FrameFor(plot, width, height);
  std::string s =
      Fmt("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
          "font-family=\"sans-serif\" font-size=\"11\">\n",
          width, height);
  s += Fmt("<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", width, height);
  s += Text(f.left, 22, plot.title, "start", "font-size=\"14\"");
  s += Axes(f);
  for (size_t i = 0; i < plot.bars.size(); ++i) {
    const BarBox r = BarRect(f, plot.bars[i]);
    s += Fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", r.x0, r.y0, r.x1 - r.x0,
             r.y1 - r.y0) +
         Fmt(" fill=\"#%06x\" stroke=\"white\" stroke-width=\"0.5\">", BarColor(plot, i)) +
         "<title>" + Escape(plot.bars[i].label + ": " + plot.bars[i].detail) +
         Fmt(" @%.0f, steps %.0f-%.0f", double(plot.bars[i].offset_bytes), plot.bars[i].first_step,
             plot.bars[i].last_step) +
         "</title></rect>\n";
    if (LabelFits(r, plot.bars[i].label, 6.5, 12)) {
      s += Text(r.x0 + 3, (r.y0 + r.y1) / 2 + 4, plot.bars[i].label, "start", "fill=\"white\"");
    }
  }
  const bool close = f.Y(double(plot.lower_bound_bytes)) - f.Y(double(plot.arena_bytes)) < 14;
  s += HLine(f, plot.arena_bytes, "#d62728", "planned total " + FormatBytes(plot.arena_bytes), 0,
             -4);
  s += HLine(f, plot.lower_bound_bytes, "#1f77b4",
             "lower bound " + FormatBytes(plot.lower_bound_bytes), 6, close ? 13 : -4);
  return s + "</svg>\n";
}

}  // namespace edgefold::tools
