// Transposed weights and NHWC tensors (conv_layout.h).
//
// A depthwise conv of a small network runs channels innermost (kernels' conv2d_depthwise_hwc: a
// register per pixel of W channels, no masks or shuffles; NCHW rows of 5 floats, DS-CNN's 25 × 5
// planes, filled a third of an AVX-512 register) when the conv before it and every conv after it
// can take that layout for free: a group-1 conv with transposed weights (conv_km) keeps a pixel
// of W output channels in a register, so it stores NHWC without its transposing stores, and a
// pointwise one broadcasts each input value wherever it lies. The layout is chosen per tensor:
// NHWC only between such a conv and the depthwise conv, the depthwise conv's only reader of its
// input; every other tensor stays NCHW. bench/README.md, "NHWC depthwise chains", has the
// measurements.
#include "lower/conv_layout.h"

#include <optional>

#include "error.h"
#include "kernels/conv/conv_scratch.h"

namespace edgefold::compiler {
namespace {

size_t Spatial(const std::vector<int64_t>& s, size_t i) {
  return s.size() == 4 ? s[2 + i] : (i == 0 ? 1 : s[2]);
}

// Conv node n's shape when it is a plain 2-D Conv of known shapes (no channel scale, no fused
// expansion), else nothing; a node the lowering will reject is nothing here.
std::optional<kernels::Conv2dShape> PlainConv2d(const ir::Graph& g, const ir::Node& n) {
  if (n.op != "Conv" || n.In(0).empty() || n.In(1).empty() || !n.In(3).empty() ||
      !n.In(4).empty() || n.outputs.empty() || !g.IsConst(n.inputs[1]))
    return std::nullopt;
  const ir::Tensor& x = g.At(n.inputs[0]);
  const ir::Tensor& w = g.At(n.inputs[1]);
  const ir::Tensor& y = g.At(n.outputs[0]);
  if (!x.shape_known || !y.shape_known || x.shape.size() != 4 || w.shape.size() != 4 ||
      y.shape.size() != 4 || x.dtype != ir::kFloat)
    return std::nullopt;
  try {
    const Window2d win = ResolveWindow(n, x.shape, {w.shape[2], w.shape[3]}, y.shape, false);
    return ConvShape(x.shape, y.shape, win, n.Int("group", 1));
  } catch (const CompileError&) {
    return std::nullopt;
  }
}

bool Undilated(const kernels::Conv2dShape& s) { return s.dilation_h == 1 && s.dilation_w == 1; }

// A group-1 conv_km conv that can store NHWC: pointwise, or transposed on its own (stride 2).
bool WritesHwc(const ir::Graph& g, const ir::Node& n) {
  const auto s = PlainConv2d(g, n);
  return s && s->group == 1 && s->out_c >= 16 && Undilated(*s) &&
         (kernels::ConvIsPointwise(*s) || TransposedPays(*s));
}

// A pointwise group-1 conv_km conv that can read NHWC.
bool ReadsHwc(const ir::Graph& g, const ir::Node& n) {
  const auto s = PlainConv2d(g, n);
  return s && s->group == 1 && s->out_c >= 16 && Undilated(*s) && kernels::ConvIsPointwise(*s);
}

// The nodes reading tensor t; false when one reads it other than as its input 0.
bool ReadersOf(const ir::Graph& g, const std::string& t, std::vector<const ir::Node*>* readers) {
  for (const ir::Node& m : g.nodes)
    for (size_t i = 0; i < m.inputs.size(); ++i)
      if (m.inputs[i] == t) {
        if (i != 0) return false;
        readers->push_back(&m);
      }
  return true;
}

// Depthwise conv n runs NHWC: 3×3 or 5×5, stride 1 or 2, at least 16 channels; its input comes
// from a conv that writes NHWC and has no other reader; its output goes only to pointwise convs
// that read NHWC.
bool DepthwiseHwc(const ir::Graph& g, const ir::Node& n) {
  const auto s = PlainConv2d(g, n);
  if (!s || s->group != s->in_c || s->out_c != s->in_c || s->in_c < 16 || !Undilated(*s) ||
      s->kh != s->kw || (s->kh != 3 && s->kh != 5) || s->stride_h != s->stride_w || s->stride_h > 2)
    return false;
  const std::string& x = n.inputs[0];
  const std::string& y = n.outputs[0];
  const int producer = g.ProducerOf(x);
  if (producer < 0 || g.IsGraphOutput(x) || g.ConsumerCount(x) != 1 ||
      !WritesHwc(g, g.nodes[static_cast<size_t>(producer)]) || g.IsGraphOutput(y))
    return false;
  std::vector<const ir::Node*> readers;
  if (!ReadersOf(g, y, &readers) || readers.empty()) return false;
  for (const ir::Node* r : readers)
    if (!ReadsHwc(g, *r)) return false;
  return true;
}

}  // namespace

kernels::Conv2dShape ConvShape(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys,
                               const Window2d& win, int64_t group) {
  kernels::Conv2dShape s;
  s.in_c = xs[1];
  s.in_h = Spatial(xs, 0);
  s.in_w = Spatial(xs, 1);
  s.out_c = ys[1];
  s.out_h = Spatial(ys, 0);
  s.out_w = Spatial(ys, 1);
  s.kh = win.kh;
  s.kw = win.kw;
  s.stride_h = win.sh;
  s.stride_w = win.sw;
  s.dilation_h = win.dh;
  s.dilation_w = win.dw;
  s.pad_top = win.top;
  s.pad_left = win.left;
  s.group = group;
  return s;
}

// Group-1 convs whose weights are stored Wᵀ [Cin, kh, kw, Cout] (WeightPacking Transposed): the
// runtime puts 16 output channels in an AVX-512 register and needs neither im2col nor phase
// planes (bench/README.md, "MLPerf Tiny networks at one thread"). At least 16 output channels
// (one whole AVX-512 register), and either
// - pointwise over fewer than 49 pixels (6² and smaller), where a GEMM over the pixels fills 9 of
//   16 lanes on a 3² plane (256 × 9 × 256 twice as fast); or
// - pointwise over 49 pixels (7², the 224² networks' last stages) that at least doubles 160 to
//   320 channels: MobileNetV2's 160 → 960 expansions and 320 → 1280 head, EfficientNet-B0's
//   320 → 1280 head ran faster so inside the network. Each of the 4 pixel blocks reads a
//   16-channel strip of Wᵀ, in_c rows of 64 bytes: 7² projections (960 → 160) and ShuffleNetV2's
//   464 → 1024 head ran slower, and with fewer input channels (MobileNetV3-small's 96 → 576) the
//   GEMM was as fast or faster (bench/README.md, "224² networks at one thread"). Those stay
//   GEMMs; or
// - stride 2 in both axes with at least 16 taps (Cin·kh·kw), output rows at least 5 wide, at
//   most 32² outputs and 128 KiB of weights (ResNet-8's 32² → 16² and 16² → 8² 3×3 convs, whose
//   phase GEMMs ran one 16- or 8-column register per output row; DS-CNN's 10×4 first layer, an
//   im2col of 40 rows of 125 columns before); the weights stay in L2 while every row block
//   streams them. Not 1×1 stride-2 convs: copying the padded input and the transposing stores
//   cost more than their few taps gain.
bool TransposedPays(const kernels::Conv2dShape& s) {
  if (s.group != 1 || s.out_c < 16) return false;
  if (kernels::ConvIsPointwise(s))
    return s.dilation_h == 1 && s.dilation_w == 1 &&
           (s.out_h * s.out_w < 49 ||
            (s.out_h * s.out_w == 49 && 2 * s.in_c <= s.out_c && s.in_c >= 160 && s.in_c <= 320));
  const size_t weight_bytes = s.in_c * s.kh * s.kw * s.out_c * sizeof(float);
  return s.stride_h == 2 && s.stride_w == 2 && s.kh * s.kw > 1 && s.in_c * s.kh * s.kw >= 16 &&
         s.out_w >= 5 && s.out_h * s.out_w <= 1024 && weight_bytes <= 128 * 1024;
}

ConvLayout ConvLayoutOf(const ir::Graph& g, const ir::Node& n) {
  ConvLayout layout;
  if (n.op != "Conv" || n.inputs.empty() || n.outputs.empty()) return layout;
  if (DepthwiseHwc(g, n)) return {true, true};
  const int producer = g.ProducerOf(n.inputs[0]);
  layout.x_hwc = producer >= 0 && DepthwiseHwc(g, g.nodes[static_cast<size_t>(producer)]);
  std::vector<const ir::Node*> readers;
  layout.y_hwc =
      ReadersOf(g, n.outputs[0], &readers) && readers.size() == 1 && DepthwiseHwc(g, *readers[0]);
  return layout;
}

}  // namespace edgefold::compiler
