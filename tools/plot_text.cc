#include "plot_text.h"

#include <cstdio>

namespace edgefold::tools {

BarBox BarRect(const PlotFrame& f, const PlotBar& b) {
  return {f.X(b.first_step), f.Y(double(b.offset_bytes + b.size_bytes)), f.X(b.last_step + 1),
          f.Y(double(b.offset_bytes))};
}

bool LabelFits(const BarBox& box, const std::string& label, double char_px, double line_px) {
  return box.x1 - box.x0 >= label.size() * char_px + 6 && box.y1 - box.y0 >= line_px;
}

std::string FormatBytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024.0));
  }
  return buf;
}

std::vector<int> AxisSteps(int num_steps) {
  int stride = 1;
  for (int s : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}) {
    stride = s;
    if (num_steps / s <= 20) break;
  }
  std::vector<int> out;
  for (int i = 0; i < num_steps; i += stride) out.push_back(i);
  return out;
}

std::vector<uint64_t> AxisBytes(uint64_t max_bytes) {
  // Below 1 KiB strides of 1, 2, 5 × 10^k bytes; above, powers of two KiB, so the labels
  // read "4.0 KiB, 8.0 KiB, ..." rather than "4.9 KiB, 9.8 KiB".
  uint64_t stride = 1;
  for (int k = 0; max_bytes / stride > 6; ++k) {
    if (stride >= 1024)
      stride *= 2;
    else if (stride >= 500)
      stride = 1024;
    else
      stride = (k % 3 == 1) ? stride * 5 / 2 : stride * 2;
  }
  std::vector<uint64_t> out;
  for (uint64_t b = 0; b <= max_bytes; b += stride) out.push_back(b);
  return out;
}

}  // namespace edgefold::tools
