#include "memory_plot.h"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace edgefold::tools {
namespace {

// Calls f(t) for every index in an optional vector.
template <class F>
bool EachIndex(const flatbuffers::Vector<int32_t>* v, F f) {
  for (flatbuffers::uoffset_t i = 0; v && i < v->size(); ++i) {
    if (!f(v->Get(i))) return false;
  }
  return true;
}

std::string Shape(const fb::Tensor& t) {
  std::string s = "[";
  for (flatbuffers::uoffset_t i = 0; t.shape() && i < t.shape()->size(); ++i)
    s += (i ? "," : "") + std::to_string(t.shape()->Get(i));
  return s + "]";
}

// first[t] / last[t]: the steps that produce and last read tensor t (-1 = never).
bool Lifetimes(const fb::Model& m, std::vector<int>* first, std::vector<int>* last,
               std::string* error) {
  const int n = static_cast<int>(m.tensors()->size());
  const int steps = m.operators() ? static_cast<int>(m.operators()->size()) : 0;
  first->assign(n, -1);
  last->assign(n, -1);
  auto bad = [&](int t, const std::string& where) {
    if (t >= -1 && t < n) return false;
    *error = where + " refers to tensor " + std::to_string(t) + " of " + std::to_string(n);
    return true;
  };
  if (!EachIndex(m.inputs(), [&](int t) {
        if (bad(t, "graph input")) return false;
        if (t >= 0) (*first)[t] = 0;
        return true;
      }))
    return false;
  for (int i = 0; i < steps; ++i) {
    const fb::Operator* op = m.operators()->Get(i);
    const std::string where =
        "op #" + std::to_string(i) + " '" + (op->name() ? op->name()->str() : "") + "'";
    const bool ok = EachIndex(op->inputs(),
                              [&](int t) {
                                if (bad(t, where + " input")) return false;
                                if (t >= 0) (*last)[t] = std::max((*last)[t], i);
                                return true;
                              }) &&
                    EachIndex(op->outputs(), [&](int t) {
                      if (bad(t, where + " output")) return false;
                      if (t >= 0 && (*first)[t] < 0) (*first)[t] = i;
                      return true;
                    });
    if (!ok) return false;
  }
  return EachIndex(m.outputs(), [&](int t) {
    if (bad(t, "graph output")) return false;
    if (t >= 0) (*last)[t] = std::max(steps - 1, 0);
    return true;
  });
}

void AddScratchBars(const fb::Model& m, MemoryPlot* out) {
  for (flatbuffers::uoffset_t i = 0; m.operators() && i < m.operators()->size(); ++i) {
    const fb::Operator* op = m.operators()->Get(i);
    if (op->scratch_bytes() == 0 || op->scratch_offset() < 0) continue;
    PlotBar b;
    b.label = "scratch #" + std::to_string(i);
    b.detail = std::string(fb::EnumNameOpType(op->type())) + " '" +
               (op->name() ? op->name()->str() : "") + "' scratch, " +
               std::to_string(op->scratch_bytes()) + " B";
    b.first_step = b.last_step = static_cast<int>(i);
    b.offset_bytes = static_cast<uint64_t>(op->scratch_offset());
    b.size_bytes = op->scratch_bytes();
    b.scratch = true;
    out->bars.push_back(b);
  }
}

}  // namespace

bool BuildMemoryPlot(const fb::Model& m, const std::string& title, MemoryPlot* out,
                     std::string* error) {
  *out = MemoryPlot();
  out->title = title;
  out->num_steps = m.operators() ? static_cast<int>(m.operators()->size()) : 0;
  out->arena_bytes = m.arena_bytes();
  out->lower_bound_bytes = m.arena_lower_bound();
  if (m.tensors() == nullptr) return true;
  std::vector<int> first, last;
  if (!Lifetimes(m, &first, &last, error)) return false;
  for (flatbuffers::uoffset_t i = 0; i < m.tensors()->size(); ++i) {
    const fb::Tensor* t = m.tensors()->Get(i);
    if (t->arena_offset() < 0) continue;  // constants live in the weights blob
    PlotBar b;
    b.label = t->name() && t->name()->size() ? t->name()->str() : "#" + std::to_string(i);
    b.detail = Shape(*t) + " " + std::to_string(t->bytes()) + " B";
    b.first_step = std::max(first[i], 0);
    b.last_step = std::max(last[i], b.first_step);  // an unread output still occupies its step
    b.offset_bytes = static_cast<uint64_t>(t->arena_offset());
    b.size_bytes = t->bytes();
    out->bars.push_back(b);
  }
  AddScratchBars(m, out);
  return true;
}

PlotFrame FrameFor(const MemoryPlot& plot, int width, int height) {
  PlotFrame f;
  f.width = width;
  f.height = height;
  f.num_steps = std::max(plot.num_steps, 1);
  uint64_t top = std::max<uint64_t>(plot.arena_bytes, 1);
  for (const PlotBar& b : plot.bars) top = std::max(top, b.offset_bytes + b.size_bytes);
  f.y_max_bytes = top + top / 20;  // 5% headroom above the total line
  return f;
}

uint32_t BarColor(const MemoryPlot& plot, size_t i) {
  // Tableau-like palette: neighbours differ, colours repeat every 10 tensors.
  static constexpr uint32_t kPalette[] = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                          0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0x86bcb6};
  if (plot.bars[i].scratch) return 0xa0a0a0;
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

bool WriteMemoryPlot(const MemoryPlot& plot, const std::string& path, std::string* error) {
  std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : "";
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string bytes;
  if (ext == ".svg") {
    bytes = RenderSvg(plot, 1000, 600);
  } else if (ext == ".png") {
    const std::vector<uint8_t> png = RenderPng(plot, 1000, 600);
    bytes.assign(png.begin(), png.end());
  } else {
    *error = "--memory-plot: '" + path + "' must end in .svg or .png";
    return false;
  }
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f.good()) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace edgefold::tools
