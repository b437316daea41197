#include "lower/spatial.h"

namespace edgefold::compiler {
namespace {

std::vector<int64_t> IntsOfRank(const ir::Node& n, const char* attr, size_t rank, int64_t dflt) {
  std::vector<int64_t> v = n.Ints(attr, std::vector<int64_t>(rank, dflt));
  if (v.size() != rank)
    throw CompileError(n.Msg("attribute '" + std::string(attr) + "' has " +
                             std::to_string(v.size()) + " values, expected " +
                             std::to_string(rank)));
  for (int64_t x : v)
    if (x < (dflt == 0 ? 0 : 1))
      throw CompileError(
          n.Msg("attribute '" + std::string(attr) + "' has invalid value " + std::to_string(x)));
  return v;
}

// out = floor_or_ceil((in + pads − ((k−1)·d + 1)) / s) + 1. With ceil_mode PyTorch also drops
// a last window that would start in the end padding; ONNX shape inference may not, so both
// counts are accepted (`alt`).
int64_t OutputDim(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pad_begin, int64_t pad_end,
                  bool ceil_mode, int64_t* alt) {
  const int64_t span = in + pad_begin + pad_end - ((k - 1) * d + 1);
  if (span < 0) return *alt = 0;
  const int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  *alt = (ceil_mode && (out - 1) * s >= in + pad_begin) ? out - 1 : out;
  return out;
}

}  // namespace

Window2d ResolveWindow(const ir::Node& n, const std::vector<int64_t>& x,
                       const std::vector<int64_t>& kernel, const std::vector<int64_t>& y,
                       bool ceil_mode) {
  const size_t rank = x.size() < 3 ? 0 : x.size() - 2;
  if (rank != 1 && rank != 2)
    throw CompileError(
        n.Msg("only 1-D and 2-D windows are supported, input is " + ir::ShapeString(x)));
  if (kernel.size() != rank)
    throw CompileError(
        n.Msg("attribute 'kernel_shape' must have " + std::to_string(rank) + " values"));
  if (y.size() != x.size()) throw CompileError(n.Msg("output rank differs from input rank"));
  const std::vector<int64_t> strides = IntsOfRank(n, "strides", rank, 1);
  const std::vector<int64_t> dil = IntsOfRank(n, "dilations", rank, 1);
  std::vector<int64_t> pads = IntsOfRank(n, "pads", 2 * rank, 0);
  const std::string auto_pad = n.Str("auto_pad", "NOTSET");
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = x[2 + i], k = kernel[i], s = strides[i], d = dil[i];
    if (k < 1)
      throw CompileError(n.Msg("attribute 'kernel_shape' has invalid value " + std::to_string(k)));
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
      const int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      pads[rank + i] = auto_pad == "SAME_UPPER" ? big : small;
    } else if (auto_pad == "VALID") {
      pads[i] = pads[rank + i] = 0;
    } else if (auto_pad != "NOTSET") {
      throw CompileError(n.Msg("attribute 'auto_pad' has invalid value '" + auto_pad + "'"));
    }
    int64_t alt = 0;
    const int64_t expect = OutputDim(in, k, s, d, pads[i], pads[rank + i], ceil_mode, &alt);
    if (expect != y[2 + i] && alt != y[2 + i])
      throw CompileError(n.Msg("output dim " + std::to_string(2 + i) + " is " +
                               std::to_string(y[2 + i]) + " but the window gives " +
                               std::to_string(expect)));
  }
  Window2d w;
  const size_t o = rank == 2 ? 0 : 1;  // 1-D: height entries stay 1 / 0
  if (rank == 2) {
    w.kh = kernel[0];
    w.sh = strides[0];
    w.dh = dil[0];
    w.top = pads[0];
    w.bottom = pads[2];
  }
  w.kw = kernel[1 - o];
  w.sw = strides[1 - o];
  w.dw = dil[1 - o];
  w.left = pads[1 - o];
  w.right = pads[rank + 1 - o];
  return w;
}

}  // namespace edgefold::compiler
