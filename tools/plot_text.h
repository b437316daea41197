// Geometry and text helpers shared by the SVG and PNG memory-plot renderers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "memory_plot.h"

namespace edgefold::tools {

// A bar's pixel rectangle: x0 < x1, y0 (top) < y1 (bottom).
struct BarBox {
  double x0, y0, x1, y1;
};
BarBox BarRect(const PlotFrame& frame, const PlotBar& bar);

// True when `label` at `char_px` pixels per character fits inside `box` at `line_px` height.
bool LabelFits(const BarBox& box, const std::string& label, double char_px, double line_px);

// "512 B", "12.5 KiB", "3.2 MiB".
std::string FormatBytes(uint64_t bytes);
// Tick positions: every step for short graphs, otherwise a round stride (≤ ~20 ticks).
std::vector<int> AxisSteps(int num_steps);
// 0 and round byte values up to `max_bytes` (≤ 7 ticks; powers of two KiB above 1 KiB).
std::vector<uint64_t> AxisBytes(uint64_t max_bytes);

}  // namespace edgefold::tools
