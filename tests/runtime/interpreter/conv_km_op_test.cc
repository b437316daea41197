// Conv ops whose weights the compiler stored transposed (WeightPacking Transposed,
// Wᵀ [Cin, kh, kw, Cout]), built here without the compiler: on every ISA against a
// double-precision convolution (pointwise on planes of fewer and more pixels than a block,
// 3×3 stride 2 with padding on odd and even planes, channel counts that are not a multiple of
// any register width, a batch of two), NHWC inputs and outputs and depthwise convs with Wᵀ
// [1, kh, kw, C], the models Prepare must refuse, and the registrations that link the path.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/conv/conv_scratch.h"
#include "testing/efb_builder.h"
#include "testing/expect_model.h"
#include "testing/run_model.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

struct PointwiseConv {
  int cin = 21, cout = 37, h = 3, w = 5, batch = 2;  // h × w: the input plane
  std::vector<int> w_shape;                          // empty: [cin, kernel, kernel, cout]
  int kernel = 1, stride = 1;                        // pads kernel / 2
  int kh = 0, kw = 0;                                // a kh × kw window instead of kernel²
  std::vector<int> pads;                             // top, left, bottom, right; empty: k / 2
  int group = 1;                                     // cin: depthwise (NHWC); 2 is refused
  bool x_nhwc = false, y_nhwc = false;               // the NHWC forms of Transposed
  int64_t scratch_bytes = -1;                        // -1: ConvKmScratchBytes
  bool bias = true;
};

// Transposed, or its form with X, Y or both NHWC.
fb::WeightPacking NhwcPacking(bool x_nhwc, bool y_nhwc) {
  return x_nhwc && y_nhwc ? fb::WeightPacking::TransposedNhwc
         : x_nhwc         ? fb::WeightPacking::TransposedNhwcIn
         : y_nhwc         ? fb::WeightPacking::TransposedNhwcOut
                          : fb::WeightPacking::Transposed;
}

struct Built {
  std::vector<uint8_t> model;
  std::vector<float> x, want;
};

Built Build(const PointwiseConv& c) {
  Built r;
  const int kh = c.kh != 0 ? c.kh : c.kernel, kw = c.kw != 0 ? c.kw : c.kernel;
  const std::vector<int> pads =
      c.pads.empty() ? std::vector<int>{kh / 2, kw / 2, kh / 2, kw / 2} : c.pads;
  const int pt = pads[0], pl = pads[1];
  const int oh = (c.h + pads[0] + pads[2] - kh) / c.stride + 1;
  const int ow = (c.w + pads[1] + pads[3] - kw) / c.stride + 1;
  r.x = RandomVector(size_t(c.batch) * c.cin * c.h * c.w, 1, -2, 2);
  const std::vector<int> ws =
      c.w_shape.empty() ? std::vector<int>{c.cin, kh, kw, c.cout} : c.w_shape;
  size_t w_count = 1;
  for (int d : ws) w_count *= size_t(d);
  const std::vector<float> wt = RandomVector(w_count, 2, -1, 1);
  const std::vector<float> b = RandomVector(c.cout, 3, -1, 1);
  EfbBuilder e;
  const int xi = e.AddInput("x", {c.batch, c.cin, c.h, c.w});
  const int wi = e.AddConstant("wt", ws, wt);
  const int bi = c.bias ? e.AddConstant("b", {c.cout}, b) : -1;
  const int yi = e.AddTensor("y", {c.batch, c.cout, oh, ow});
  fb::ConvOptionsT o;
  o.kernel = {kh, kw};
  o.strides = {c.stride, c.stride};
  o.dilations = {1, 1};
  o.pads = {pads[0], pads[1], pads[2], pads[3]};
  o.group = c.group;
  o.packing = NhwcPacking(c.x_nhwc, c.y_nhwc);
  o.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion opts;
  opts.Set(std::move(o));
  kernels::Conv2dShape s;
  s.in_c = c.cin, s.out_c = c.cout, s.in_h = c.h, s.in_w = c.w, s.out_h = oh, s.out_w = ow;
  s.kh = kh, s.kw = kw, s.stride_h = s.stride_w = c.stride, s.pad_top = pt, s.pad_left = pl;
  const uint64_t scratch =
      c.scratch_bytes >= 0 ? uint64_t(c.scratch_bytes) : uint64_t(kernels::ConvKmScratchBytes(s));
  e.AddOp(fb::OpType::Conv, "pconv", {xi, wi, bi}, {yi}, std::move(opts), scratch);
  e.AddOutput(yi);
  r.model = e.Finish();
  // A model the op must refuse (W of another shape) has no expected output: its W is not
  // [Cin, kh, kw, Cout] and the reference below would read past it.
  const bool depthwise = c.group == c.cin && c.cin == c.cout && c.cin > 1;
  const int cin_g = depthwise ? 1 : c.cin;
  if (w_count != size_t(cin_g) * kh * kw * c.cout || (c.group != 1 && !depthwise)) return r;
  r.want.resize(size_t(c.batch) * c.cout * oh * ow);
  for (int n = 0; n < c.batch; ++n)
    for (int oc = 0; oc < c.cout; ++oc)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          double acc = c.bias ? b[oc] : 0.0;
          for (int g = 0; g < cin_g; ++g)
            for (int ky = 0; ky < kh; ++ky)
              for (int kx = 0; kx < kw; ++kx) {
                const int iy = y * c.stride + ky - pt, ix = x * c.stride + kx - pl;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                const int ic = depthwise ? oc : g;
                const size_t xi = c.x_nhwc ? ((size_t(n) * c.h + iy) * c.w + ix) * c.cin + ic
                                           : ((size_t(n) * c.cin + ic) * c.h + iy) * c.w + ix;
                acc += double(wt[((size_t(g) * kh + ky) * kw + kx) * c.cout + oc]) * r.x[xi];
              }
          const size_t yi = c.y_nhwc ? ((size_t(n) * oh + y) * ow + x) * c.cout + oc
                                     : ((size_t(n) * c.cout + oc) * oh + y) * ow + x;
          r.want[yi] = static_cast<float>(std::max(acc, 0.0));
        }
  return r;
}

TEST(ConvTransposedWeightsOp, StrideTwoMatchesADirectConvolution) {
  for (const auto& [h, w] : {std::pair{16, 16}, std::pair{9, 17}, std::pair{8, 5}}) {
    PointwiseConv c;
    c.kernel = 3, c.stride = 2, c.h = h, c.w = w, c.cin = 18, c.cout = 21;
    const Built b = Build(c);
    ExpectOutputOnEveryIsa(b.model, {b.x}, b.want, 2e-5,
                           "3x3 stride 2 on " + std::to_string(h) + "x" + std::to_string(w));
  }
}

// One input channel, a tall window and uneven pads (DS-CNN's 10 × 4 first layer on 49 × 10 into
// 25 × 5, 64 channels), and the same with output channels and rows that fill no register.
TEST(ConvTransposedWeightsOp, OneChannelTallWindowStrideTwo) {
  struct Case {
    int h, w, kh, kw, cout;
    std::vector<int> pads;
  };
  for (const Case& k : {Case{49, 10, 10, 4, 64, {4, 1, 5, 1}}, Case{21, 7, 10, 4, 19, {4, 1, 5, 1}},
                        Case{9, 11, 4, 4, 17, {0, 2, 1, 0}}, Case{1, 13, 1, 4, 33, {0, 1, 0, 2}}}) {
    PointwiseConv c;
    c.stride = 2, c.h = k.h, c.w = k.w, c.kh = k.kh, c.kw = k.kw, c.pads = k.pads;
    c.cin = 1, c.cout = k.cout, c.batch = 1;
    const Built b = Build(c);
    ExpectOutputOnEveryIsa(b.model, {b.x}, b.want, 2e-5,
                           std::to_string(k.kh) + "x" + std::to_string(k.kw) + " stride 2 on " +
                               std::to_string(k.h) + "x" + std::to_string(k.w));
  }
}

TEST(ConvTransposedWeightsOp, MatchesAPointwiseConvolution) {
  for (const auto& [h, w] : {std::pair{3, 3}, std::pair{3, 5}, std::pair{6, 6}, std::pair{1, 17}}) {
    for (const int cout : {16, 37}) {
      PointwiseConv c;
      c.h = h, c.w = w, c.cout = cout;
      c.bias = cout != 16;
      const Built b = Build(c);
      ExpectOutputOnEveryIsa(
          b.model, {b.x}, b.want, 2e-5,
          std::to_string(h) + "x" + std::to_string(w) + " cout " + std::to_string(cout));
    }
  }
}

// Channels innermost (the compiler's NHWC tensors): pointwise convs reading and writing either
// layout, a 3×3 stride-2 conv writing NHWC, and depthwise convs with Wᵀ [1, k, k, C] (3×3 on
// 25 × 5 and 7 × 7, 5×5 stride 2, 1 × 9; 40 channels: no register width divides them).
TEST(ConvTransposedWeightsOp, ChannelsInnermost) {
  for (const bool x_nhwc : {false, true})
    for (const bool y_nhwc : {false, true}) {
      PointwiseConv c;
      c.h = 25, c.w = 5, c.cin = 40, c.cout = 37, c.x_nhwc = x_nhwc, c.y_nhwc = y_nhwc;
      const Built b = Build(c);
      ExpectOutputOnEveryIsa(
          b.model, {b.x}, b.want, 2e-5,
          "pointwise x_nhwc " + std::to_string(x_nhwc) + " y_nhwc " + std::to_string(y_nhwc));
    }
  PointwiseConv strided;
  strided.kernel = 3, strided.stride = 2, strided.h = 9, strided.w = 17, strided.y_nhwc = true;
  const Built s = Build(strided);
  ExpectOutputOnEveryIsa(s.model, {s.x}, s.want, 2e-5, "3x3 stride 2 writing NHWC");
  struct Dw {
    int h, w, k, stride;
  };
  for (const Dw& d : {Dw{25, 5, 3, 1}, Dw{7, 7, 3, 1}, Dw{9, 12, 5, 2}, Dw{1, 9, 3, 1}}) {
    PointwiseConv c;
    c.group = c.cin = c.cout = 40;
    c.h = d.h, c.w = d.w, c.kernel = d.k, c.stride = d.stride, c.w_shape = {1, d.k, d.k, 40};
    c.x_nhwc = c.y_nhwc = true, c.scratch_bytes = 0;
    const Built b = Build(c);
    ExpectOutputOnEveryIsa(b.model, {b.x}, b.want, 2e-5,
                           "depthwise " + std::to_string(d.k) + "x" + std::to_string(d.k) + " on " +
                               std::to_string(d.h) + "x" + std::to_string(d.w));
  }
}

void ExpectRefused(const PointwiseConv& c, const std::string& what) {
  const Built b = Build(c);
  ExpectRefusedNaming(b.model, {b.x}, "pconv", what);
}

TEST(ConvTransposedWeightsOp, RefusesBadModels) {
  PointwiseConv plain_shape;  // W as [Cout, Cin, 1, 1]
  plain_shape.w_shape = {37, 21, 1, 1};
  ExpectRefused(plain_shape, "W [Cin, kh, kw, Cout]");
  PointwiseConv window_mismatch;  // a 3×3 conv with 1×1 transposed weights
  window_mismatch.kernel = 3;
  window_mismatch.w_shape = {21, 1, 1, 37};
  ExpectRefused(window_mismatch, "W [Cin, kh, kw, Cout]");
  PointwiseConv stride_three;
  stride_three.kernel = 3, stride_three.stride = 3;
  ExpectRefused(stride_three, "column stride of 1 or 2");
  PointwiseConv grouped;
  grouped.group = 2, grouped.cin = 22, grouped.cout = 38, grouped.w_shape = {22, 1, 1, 38};
  ExpectRefused(grouped, "must be depthwise with W [1, kh, kw, C]");
  PointwiseConv depthwise_nchw;  // a depthwise conv with transposed weights reads NHWC only
  depthwise_nchw.group = depthwise_nchw.cin = depthwise_nchw.cout = 24;
  depthwise_nchw.kernel = 3, depthwise_nchw.w_shape = {1, 3, 3, 24};
  ExpectRefused(depthwise_nchw, "reads and writes NHWC");
  PointwiseConv strided_nhwc_input;  // NHWC input: pointwise or depthwise only
  strided_nhwc_input.kernel = 3, strided_nhwc_input.stride = 2, strided_nhwc_input.x_nhwc = true;
  ExpectRefused(strided_nhwc_input, "NHWC input needs a pointwise or a depthwise conv");
  PointwiseConv small_scratch;
  small_scratch.kernel = 3, small_scratch.stride = 2, small_scratch.scratch_bytes = 64;
  ExpectRefused(small_scratch, "scratch bytes");
}

// Two pointwise convs whose layouts disagree on the tensor between them: refused by the load
// (model/layout_check.h), naming the reader.
std::vector<uint8_t> TwoPointwiseConvs(bool first_writes_nhwc, bool second_reads_nhwc) {
  EfbBuilder e;
  const int xi = e.AddInput("x", {1, 21, 3, 5});
  const int w1 = e.AddConstant("w1", {21, 1, 1, 37}, RandomVector(21 * 37, 4, -1, 1));
  const int w2 = e.AddConstant("w2", {37, 1, 1, 16}, RandomVector(37 * 16, 5, -1, 1));
  const int ti = e.AddTensor("t", {1, 37, 3, 5});
  const int yi = e.AddTensor("y", {1, 16, 3, 5});
  const auto options = [](bool x_nhwc, bool y_nhwc) {
    fb::ConvOptionsT o;
    o.kernel = {1, 1}, o.strides = {1, 1}, o.dilations = {1, 1}, o.pads = {0, 0, 0, 0};
    o.packing = NhwcPacking(x_nhwc, y_nhwc);
    fb::OpOptionsUnion u;
    u.Set(std::move(o));
    return u;
  };
  e.AddOp(fb::OpType::Conv, "first", {xi, w1, -1}, {ti}, options(false, first_writes_nhwc), 0);
  e.AddOp(fb::OpType::Conv, "second", {ti, w2, -1}, {yi}, options(second_reads_nhwc, false), 0);
  e.AddOutput(yi);
  return e.Finish();
}

TEST(ConvTransposedWeightsOp, RefusesLayoutsThatDisagree) {
  const std::vector<float> x = RandomVector(21 * 15, 6, -1, 1);
  ExpectRefusedNaming(TwoPointwiseConvs(false, true), {x}, "second", "written NCHW");
  ExpectRefusedNaming(TwoPointwiseConvs(true, false), {x}, "second", "written NHWC");
  for (const bool nhwc : {false, true}) {  // agreeing: both layouts give the same values
    const RunResult r = RunModel(TwoPointwiseConvs(nhwc, nhwc), {x}, Isa::kAuto);
    ASSERT_EQ(r.status, Status::kOk) << r.log;
    EXPECT_EQ(r.outputs, RunModel(TwoPointwiseConvs(false, false), {x}, Isa::kAuto).outputs);
  }
}

// Registered with only the plain paths (OpResolver::AddConvPlain) or the expansion, Conv refuses
// transposed weights by name; AddConvWinograd (weights in another layout) computes the bits
// AddConv (every schedule) computes.
TEST(ConvTransposedWeightsOp, RunsOnlyWhereItsScheduleIsRegistered) {
  const Built b = Build(PointwiseConv());
  OpResolver every, plain, winograd, expansion;
  every.AddConv();
  plain.AddConvPlain();
  winograd.AddConvWinograd();
  expansion.AddConvExpansion();
  const RunResult want = RunModel(b.model, {b.x}, Isa::kAuto, &every);
  ASSERT_EQ(want.status, Status::kOk) << want.log;
  const RunResult got = RunModel(b.model, {b.x}, Isa::kAuto, &winograd);
  ASSERT_EQ(got.status, Status::kOk) << got.log;
  EXPECT_EQ(got.outputs, want.outputs);
  for (const OpResolver* without : {&plain, &expansion}) {
    const RunResult r = RunModel(b.model, {b.x}, Isa::kAuto, without);
    EXPECT_EQ(r.status, Status::kUnsupportedOp);
    EXPECT_NE(r.log.find("transposed weights"), std::string::npos) << r.log;
  }
}

}  // namespace
}  // namespace edgefold::testing
