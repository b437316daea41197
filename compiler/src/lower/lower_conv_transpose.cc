// ConvTranspose: ONNX attributes → explicit crops (pads) checked against the inferred output
// shape, and W [Cin, Cout/g, k...] repacked as the runtime's GEMM operand
// [g][Cout/g][kh][kw][Cin/g] (schema ConvTransposeOptions, kernels/conv/conv_transpose.h).
#include <algorithm>

#include "kernels/conv/conv_transpose.h"
#include "lower/lower_context.h"

namespace edgefold::compiler {
namespace {

std::vector<int64_t> PerAxis(const ir::Node& n, const char* attr, size_t count, int64_t dflt,
                             int64_t min) {
  const std::vector<int64_t> v = n.Ints(attr, std::vector<int64_t>(count, dflt));
  if (v.size() != count)
    throw CompileError(n.Msg("attribute '" + std::string(attr) + "' has " +
                             std::to_string(v.size()) + " values, expected " +
                             std::to_string(count)));
  for (int64_t x : v)
    if (x < min)
      throw CompileError(
          n.Msg("attribute '" + std::string(attr) + "' has invalid value " + std::to_string(x)));
  return v;
}

struct Axes {  // per spatial axis (1 or 2), begin/end crops
  std::vector<int64_t> kernel, strides, dil, pads_begin, pads_end;
};

// ONNX: full = s·(in − 1) + (k − 1)·d + 1; out = full + output_padding − crops. With
// output_shape (or auto_pad SAME_*: out = in·s) the crops follow: total = full + output_padding
// − out, split evenly, the odd one at the end for SAME_UPPER (and NOTSET), at the start for
// SAME_LOWER. The output padding (< max(s, d)) is the part of y no tap reaches.
// Returns non-negative crops; the output tensor is then longer than full − crops by the padding.
Axes ResolveAxes(const ir::Node& n, const std::vector<int64_t>& xs,
                 const std::vector<int64_t>& kernel, const std::vector<int64_t>& ys) {
  const size_t rank = kernel.size();
  Axes a;
  a.kernel = kernel;
  a.strides = PerAxis(n, "strides", rank, 1, 1);
  a.dil = PerAxis(n, "dilations", rank, 1, 1);
  const std::vector<int64_t> pads = PerAxis(n, "pads", 2 * rank, 0, 0);
  const std::vector<int64_t> out_pad = PerAxis(n, "output_padding", rank, 0, 0);
  const std::string auto_pad = n.Str("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    throw CompileError(n.Msg("attribute 'auto_pad' has invalid value '" + auto_pad + "'"));
  std::vector<int64_t> out_shape = n.Ints("output_shape", {});
  if (out_shape.size() == rank + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (!out_shape.empty() && out_shape.size() != rank)
    throw CompileError(
        n.Msg("attribute 'output_shape' must have " + std::to_string(rank) + " values"));
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = xs[2 + i], s = a.strides[i], d = a.dil[i], k = kernel[i];
    if (out_pad[i] >= std::max(s, d))
      throw CompileError(n.Msg("attribute 'output_padding' " + std::to_string(out_pad[i]) +
                               " must be smaller than the stride or the dilation"));
    const int64_t full = s * (in - 1) + (k - 1) * d + 1;
    int64_t begin = pads[i], end = pads[rank + i];
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    if (!out_shape.empty() || same) {
      const int64_t target = !out_shape.empty() ? out_shape[i] : in * s;
      const int64_t total = full + out_pad[i] - target;
      const int64_t small = total / 2, big = total - small;
      begin = auto_pad == "SAME_LOWER" ? big : small;
      end = auto_pad == "SAME_LOWER" ? small : big;
    } else if (auto_pad == "VALID") {
      begin = end = 0;
    }
    // output_shape past the full output (total < 0): ONNX puts the extra rows at the end,
    // where they take only bias, like output_padding.
    const int64_t extra = out_pad[i] + std::max<int64_t>(0, -end);
    end = std::max<int64_t>(0, end);
    if (begin < 0 || extra >= std::max(s, d))
      throw CompileError(n.Msg("output dim " + std::to_string(2 + i) + " is " +
                               std::to_string(ys[2 + i]) + ", beyond the full output " +
                               std::to_string(full) +
                               " by more than the stride or dilation allows"));
    const int64_t expect = full + extra - begin - end;
    if (expect < 1 || expect != ys[2 + i])
      throw CompileError(n.Msg("output dim " + std::to_string(2 + i) + " is " +
                               std::to_string(ys[2 + i]) + " but the window gives " +
                               std::to_string(expect)));
    a.pads_begin.push_back(begin);
    a.pads_end.push_back(end);
  }
  return a;
}

// Checks W [Cin, Cout/g, k...], group and bias against X and Y; throws naming the node.
void CheckChannels(const ir::Node& n, const std::vector<int64_t>& xs,
                   const std::vector<int64_t>& ws, const std::vector<int64_t>& ys, int64_t group,
                   int64_t bias_values) {
  if ((xs.size() != 3 && xs.size() != 4) || ws.size() != xs.size() || ys.size() != xs.size())
    throw CompileError(n.Msg("X, W and Y must all be rank 3 (1-D) or 4 (2-D): X " +
                             ir::ShapeString(xs) + ", W " + ir::ShapeString(ws) + ", Y " +
                             ir::ShapeString(ys)));
  if (ws[0] != xs[1])
    throw CompileError(n.Msg("W " + ir::ShapeString(ws) +
                             " must be [Cin, Cout/group, k...] with Cin = " +
                             std::to_string(xs[1]) + " (X " + ir::ShapeString(xs) + ")"));
  if (group < 1 || xs[1] % group != 0 || ws[1] * group != ys[1])
    throw CompileError(n.Msg("attribute 'group'=" + std::to_string(group) + " does not fit X " +
                             ir::ShapeString(xs) + ", W " + ir::ShapeString(ws) + " and Y " +
                             ir::ShapeString(ys)));
  if (ys[0] != xs[0]) throw CompileError(n.Msg("Y batch differs from X batch"));
  if (bias_values >= 0 && bias_values != ys[1])
    throw CompileError(n.Msg("bias B has " + std::to_string(bias_values) + " values for " +
                             std::to_string(ys[1]) + " output channels"));
}

// packed[g][j][ky][kx][i] = W[g·cin_g + i][j][ky][kx]: row (j, ky, kx) of A_g = W_gᵀ.
std::vector<float> PackWeights(const std::vector<double>& w, int64_t cin, int64_t cout_g,
                               int64_t taps, int64_t group) {
  const int64_t cin_g = cin / group;
  std::vector<float> packed(w.size());
  for (int64_t ic = 0; ic < cin; ++ic) {
    const int64_t g = ic / cin_g, i = ic % cin_g;
    for (int64_t j = 0; j < cout_g; ++j)
      for (int64_t t = 0; t < taps; ++t)
        packed[((g * cout_g + j) * taps + t) * cin_g + i] =
            static_cast<float>(w[(ic * cout_g + j) * taps + t]);
  }
  return packed;
}

}  // namespace

void LowerConvTranspose(LowerContext& ctx, const ir::Node& n) {
  const ConvOperands o = ReadConvOperands(ctx, n);
  const int x = o.x, b = o.b, y = o.y;
  const ir::Tensor& w_ir = *o.w;
  const std::vector<int64_t>&xs = o.xs, &ws = o.ws, &ys = o.ys;
  const int64_t group = o.group;
  CheckChannels(n, xs, ws, ys, group, b >= 0 ? ir::NumElements(ctx.Shape(b)) : -1);
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (n.Has("kernel_shape") && n.Ints("kernel_shape", {}) != kernel)
    throw CompileError(n.Msg("attribute 'kernel_shape' does not match W " + ir::ShapeString(ws)));
  const Axes a = ResolveAxes(n, xs, kernel, ys);
  const bool two_d = kernel.size() == 2;
  const size_t w_axis = two_d ? 1 : 0;  // 1-D: height entries stay 1 / 0
  fb::ConvTransposeOptionsT opt;
  opt.kernel = {two_d ? ToInt32(n, a.kernel[0], "window") : 1,
                ToInt32(n, a.kernel[w_axis], "window")};
  opt.strides = {two_d ? ToInt32(n, a.strides[0], "window") : 1,
                 ToInt32(n, a.strides[w_axis], "window")};
  opt.dilations = {two_d ? ToInt32(n, a.dil[0], "window") : 1, ToInt32(n, a.dil[w_axis], "window")};
  opt.pads = {two_d ? ToInt32(n, a.pads_begin[0], "pad") : 0,
              ToInt32(n, a.pads_begin[w_axis], "pad"), two_d ? ToInt32(n, a.pads_end[0], "pad") : 0,
              ToInt32(n, a.pads_end[w_axis], "pad")};
  opt.group = ToInt32(n, group, "group");
  opt.activation = ToFbActivation(n.act);
  const int64_t cout_g = ws[1], kh = two_d ? ws[2] : 1, kw = ws.back();
  const int weights = ctx.NewTensor(n.In(1) + "_packed", {group, cout_g, kh, kw, xs[1] / group},
                                    true, PackWeights(w_ir.data, xs[1], cout_g, kh * kw, group));
  kernels::Conv2dShape s;  // the adjoint conv: its input is y, its output x
  s.in_c = ys[1];
  s.in_h = two_d ? ys[2] : 1;
  s.in_w = ys.back();
  s.out_c = xs[1];
  s.out_h = two_d ? xs[2] : 1;
  s.out_w = xs.back();
  s.kh = kh;
  s.kw = kw;
  s.stride_h = opt.strides[0];
  s.stride_w = opt.strides[1];
  s.dilation_h = opt.dilations[0];
  s.dilation_w = opt.dilations[1];
  s.pad_top = opt.pads[0];
  s.pad_left = opt.pads[1];
  s.group = group;
  fb::OperatorT& op = ctx.AddOp(fb::OpType::ConvTranspose, n, {x, weights, b}, {y});
  op.options.Set(std::move(opt));
  op.scratch_bytes = kernels::ConvTransposeScratchBytes(s);
}

}  // namespace edgefold::compiler
