// Depthwise Conv ops with a fused pointwise expansion (inputs 4 and 5, kernels/conv/conv_expand.h),
// built here without the compiler: on every ISA against a double-precision expansion followed
// by a direct depthwise convolution, for strides 1 and 2, 3×3 and 5×5 windows, dilation,
// asymmetric padding, widths off the register width, batch 2 and bands of 1 row to the whole
// plane; and the models Prepare must refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/conv/conv_expand.h"
#include "testing/efb_builder.h"
#include "testing/expect_model.h"
#include "testing/run_model.h"

namespace edgefold::testing {
namespace {

struct ExpandConv {
  int batch = 1, cin = 5, channels = 12, h = 11, w = 13;
  int k = 3, stride = 1, dilation = 1;
  int pad_top = 1, pad_left = 1, pad_bottom = 1, pad_right = 1;
  int band_rows = 2;           // output rows per band the scratch is planned for
  int64_t scratch_bytes = -1;  // -1: MakeExpandBands(band_rows)
  int we_cin = -1;             // We's second dim; -1: cin
  int group = -1;              // -1: channels (depthwise)
  bool expand_bias = true, expand_weights = true;
};

int OutSize(int in, int k, int stride, int dilation, int lo, int hi) {
  return (in + lo + hi - (k - 1) * dilation - 1) / stride + 1;
}

struct Built {
  std::vector<uint8_t> model;
  std::vector<float> x, want;
};

// t = relu6(We·x + be), y = hardswish(dwconv(t) + bd).
Built Build(const ExpandConv& c) {
  const int ho = OutSize(c.h, c.k, c.stride, c.dilation, c.pad_top, c.pad_bottom);
  const int wo = OutSize(c.w, c.k, c.stride, c.dilation, c.pad_left, c.pad_right);
  const int we_cin = c.we_cin > 0 ? c.we_cin : c.cin;
  Built r;
  r.x = RandomVector(size_t(c.batch) * c.cin * c.h * c.w, 1, -2, 2);
  const std::vector<float> we = RandomVector(size_t(c.channels) * we_cin, 2, -1, 1);
  const std::vector<float> be = RandomVector(c.channels, 3, -0.5f, 1);
  const std::vector<float> wd = RandomVector(size_t(c.channels) * c.k * c.k, 4, -1, 1);
  const std::vector<float> bd = RandomVector(c.channels, 5, -1, 1);
  kernels::Conv2dShape s;
  s.in_c = s.out_c = s.group = c.channels;
  s.in_h = c.h, s.in_w = c.w, s.out_h = ho, s.out_w = wo, s.kh = s.kw = c.k;
  s.stride_h = s.stride_w = c.stride, s.dilation_h = s.dilation_w = c.dilation;
  s.pad_top = c.pad_top, s.pad_left = c.pad_left;
  EfbBuilder e;
  const int xi = e.AddInput("x", {c.batch, c.cin, c.h, c.w});
  const int wdi = e.AddConstant("wd", {c.channels, 1, c.k, c.k}, wd);
  const int bdi = e.AddConstant("bd", {c.channels}, bd);
  const int wei = c.expand_weights ? e.AddConstant("we", {c.channels, we_cin, 1, 1}, we) : -1;
  const int bei = c.expand_bias ? e.AddConstant("be", {c.channels}, be) : -1;
  const int yi = e.AddTensor("y", {c.batch, c.channels, ho, wo});
  fb::ConvOptionsT o;
  o.kernel = {c.k, c.k};
  o.strides = {c.stride, c.stride};
  o.dilations = {c.dilation, c.dilation};
  o.pads = {c.pad_top, c.pad_left, c.pad_bottom, c.pad_right};
  o.group = c.group > 0 ? c.group : c.channels;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::HardSwish));
  o.expand_activation =
      std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Clip, 0, 6));
  fb::OpOptionsUnion opts;
  opts.Set(std::move(o));
  const uint64_t scratch = c.scratch_bytes >= 0
                               ? uint64_t(c.scratch_bytes)
                               : uint64_t(kernels::MakeExpandBands(s, c.band_rows).scratch_bytes);
  e.AddOp(fb::OpType::Conv, "fused", {xi, wdi, bdi, -1, wei, bei}, {yi}, std::move(opts), scratch);
  e.AddOutput(yi);
  r.model = e.Finish();
  std::vector<double> t(size_t(c.channels) * c.h * c.w);
  for (int n = 0; n < c.batch; ++n) {
    const float* xn = r.x.data() + size_t(n) * c.cin * c.h * c.w;
    for (int ch = 0; ch < c.channels; ++ch)
      for (int p = 0; p < c.h * c.w; ++p) {
        double acc = c.expand_bias ? be[ch] : 0.0;
        // min: a refused model's We may have another Cin (its `want` is never compared).
        for (int ic = 0; ic < std::min(c.cin, we_cin); ++ic)
          acc += double(we[ch * we_cin + ic]) * xn[ic * c.h * c.w + p];
        t[size_t(ch) * c.h * c.w + p] = std::min(std::max(acc, 0.0), 6.0);
      }
    for (int ch = 0; ch < c.channels; ++ch)
      for (int oy = 0; oy < ho; ++oy)
        for (int ox = 0; ox < wo; ++ox) {
          double acc = bd[ch];
          for (int ky = 0; ky < c.k; ++ky)
            for (int kx = 0; kx < c.k; ++kx) {
              const int iy = oy * c.stride - c.pad_top + ky * c.dilation;
              const int ix = ox * c.stride - c.pad_left + kx * c.dilation;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              acc += double(wd[(ch * c.k + ky) * c.k + kx]) * t[(size_t(ch) * c.h + iy) * c.w + ix];
            }
          r.want.push_back(static_cast<float>(acc * std::min(std::max(acc + 3, 0.0), 6.0) / 6));
        }
  }
  return r;
}

void ExpectMatches(const ExpandConv& c, const std::string& name) {
  const Built b = Build(c);
  ExpectOutputOnEveryIsa(b.model, {b.x}, b.want, 2e-5,
                         name + ", bands of " + std::to_string(c.band_rows));
}

TEST(ConvExpandOp, MatchesAnExpansionThenADepthwiseConv) {
  for (int rows : {1, 2, 3, 100}) {  // 100: one band over the whole plane
    ExpandConv c;
    c.band_rows = rows;
    ExpectMatches(c, "3x3 stride 1");
    c.stride = 2;
    ExpectMatches(c, "3x3 stride 2");
    c.k = 5, c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 2;
    ExpectMatches(c, "5x5 stride 2");
  }
}

TEST(ConvExpandOp, DilationAsymmetricPaddingWidthsAndBatch) {
  ExpandConv dilated;
  dilated.dilation = 2,
  dilated.pad_top = dilated.pad_left = dilated.pad_bottom = dilated.pad_right = 2;
  ExpectMatches(dilated, "dilation 2");
  ExpandConv same_upper;  // stride 2 with the padding below and right only (TF "SAME")
  same_upper.stride = 2, same_upper.h = 12, same_upper.w = 16;
  same_upper.pad_top = same_upper.pad_left = 0;
  ExpectMatches(same_upper, "pads 0, 0, 1, 1");
  ExpandConv unpadded;
  unpadded.pad_top = unpadded.pad_left = unpadded.pad_bottom = unpadded.pad_right = 0;
  ExpectMatches(unpadded, "no padding");
  for (int w : {1, 7, 17, 33}) {  // around every register width
    ExpandConv c;
    c.w = w;
    ExpectMatches(c, "width " + std::to_string(w));
  }
  ExpandConv batch;
  batch.batch = 2, batch.channels = 19;
  ExpectMatches(batch, "batch 2");
  ExpandConv no_bias;
  no_bias.expand_bias = false;
  ExpectMatches(no_bias, "no expansion bias");
}

// The runtime's band height from the planned scratch: the most rows whose band fits, as a search
// over every row count finds it.
TEST(ConvExpandOp, BandRowsAreTheMostThatFit) {
  for (size_t k : {1, 3, 5})
    for (size_t stride : {1, 2})
      for (size_t in_h : {1, 2, 7, 30}) {
        kernels::Conv2dShape s;
        s.in_c = s.out_c = s.group = 3, s.in_w = 5, s.in_h = in_h, s.kh = s.kw = k;
        s.stride_h = s.stride_w = stride, s.pad_top = s.pad_left = k / 2;
        s.out_h = (in_h + 2 * (k / 2) - k) / stride + 1, s.out_w = 5;
        for (size_t bytes = 0; bytes < 3 * 5 * 4 * (in_h + 2); bytes += 7) {
          size_t want = 0;
          for (size_t r = 1; r <= s.out_h; ++r)
            if (kernels::MakeExpandBands(s, r).scratch_bytes <= bytes) want = r;
          EXPECT_EQ(kernels::ExpandBandRowsFor(s, bytes), want)
              << "k " << k << " stride " << stride << " in_h " << in_h << " bytes " << bytes;
        }
      }
}

void ExpectRefused(const ExpandConv& c, const std::string& what) {
  const Built b = Build(c);
  ExpectRefusedNaming(b.model, {b.x}, "fused", what);
}

TEST(ConvExpandOp, RefusesBadModels) {
  ExpandConv small_scratch;
  small_scratch.scratch_bytes = 64;
  ExpectRefused(small_scratch, "scratch bytes for one band");
  ExpandConv wrong_cin;
  wrong_cin.we_cin = 4;
  ExpectRefused(wrong_cin, "We [C, Cin, 1, 1]");
  ExpandConv not_depthwise;
  not_depthwise.group = 1;
  ExpectRefused(not_depthwise, "depthwise conv over");
  ExpandConv bias_alone;
  bias_alone.expand_weights = false;
  ExpectRefused(bias_alone, "needs its weights");
  ExpandConv all_padding;  // the last output row's window lies in the padding only
  all_padding.pad_bottom = 3, all_padding.stride = 2;
  ExpectRefused(all_padding, "padding smaller than the window");
}

// Registered without the expansion schedule (AddConvPlain, AddConvWinograd), Conv refuses a
// fused expansion by name; with AddConvExpansion it computes the bits AddConv computes.
TEST(ConvExpandOp, RunsOnlyWhereItsScheduleIsRegistered) {
  const Built b = Build(ExpandConv());
  OpResolver every, plain, winograd, expansion;
  every.AddConv();
  plain.AddConvPlain();
  winograd.AddConvWinograd();
  expansion.AddConvExpansion();
  const RunResult want = RunModel(b.model, {b.x}, Isa::kAuto, &every);
  ASSERT_EQ(want.status, Status::kOk) << want.log;
  const RunResult got = RunModel(b.model, {b.x}, Isa::kAuto, &expansion);
  ASSERT_EQ(got.status, Status::kOk) << got.log;
  EXPECT_EQ(got.outputs, want.outputs);
  for (const OpResolver* without : {&plain, &winograd}) {
    const RunResult r = RunModel(b.model, {b.x}, Isa::kAuto, without);
    EXPECT_EQ(r.status, Status::kUnsupportedOp);
    EXPECT_NE(r.log.find("fused"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("AddConvExpansion"), std::string::npos) << r.log;
  }
}

}  // namespace
}  // namespace edgefold::testing
