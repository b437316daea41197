// The arena over time, for `edgefold inspect --memory-plot`: every planned tensor (and every
// op's scratch) is a bar at its arena offset spanning its lifetime in op steps, so a user sees
// where memory goes and which tensors set the peak.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "edgefold/model_generated.h"

namespace edgefold::tools {

struct PlotBar {
  std::string label;   // tensor name, or "scratch #op"
  std::string detail;  // shape and bytes, for tooltips
  int first_step = 0;  // producer op (0 for graph inputs)
  int last_step = 0;   // last consumer op (the last op for graph outputs), inclusive
  uint64_t offset_bytes = 0;
  uint64_t size_bytes = 0;
  bool scratch = false;
};

struct MemoryPlot {
  std::vector<PlotBar> bars;
  int num_steps = 0;         // number of ops
  uint64_t arena_bytes = 0;  // planned total
  uint64_t lower_bound_bytes = 0;
  std::string title;
};

// Collects bars from a verified model. False with `error` naming the tensor or op whose
// indices or offsets do not make sense (the verifier checks structure, not meaning).
bool BuildMemoryPlot(const fb::Model& model, const std::string& title, MemoryPlot* out,
                     std::string* error);

// Where the plot area sits in an image of width×height pixels; shared by the SVG and PNG
// renderers (and the tests), so both draw the same picture.
struct PlotFrame {
  int width = 1000, height = 600;
  int left = 90, right = 20, top = 40, bottom = 50;  // margins in pixels
  int num_steps = 1;
  uint64_t y_max_bytes = 1;  // top of the y axis (≥ arena_bytes)

  double X(double step) const { return left + step * (width - left - right) / num_steps; }
  // Offset 0 at the bottom.
  double Y(double bytes) const {
    return height - bottom - bytes * (height - top - bottom) / double(y_max_bytes);
  }
};
PlotFrame FrameFor(const MemoryPlot& plot, int width, int height);

// Fill colour of bar i as 0xRRGGBB (scratch bars are grey).
uint32_t BarColor(const MemoryPlot& plot, size_t i);

std::string RenderSvg(const MemoryPlot& plot, int width, int height);
// Encoded PNG bytes (RGB, 8 bit).
std::vector<uint8_t> RenderPng(const MemoryPlot& plot, int width, int height);

// Writes `plot` to `path`, SVG or PNG by extension (.svg / .png, any case).
bool WriteMemoryPlot(const MemoryPlot& plot, const std::string& path, std::string* error);

}  // namespace edgefold::tools
