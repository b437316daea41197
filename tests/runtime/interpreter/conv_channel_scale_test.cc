// Conv with a channel scale (input 3, the squeeze-and-excitation Mul the compiler fuses in):
//   y[o, p] = act(b[o] + Σ_c W[o, c]·s[c]·x[c, p])
// on every ISA against a double-precision reference, and the models Prepare must refuse.
#include <gtest/gtest.h>

#include <cmath>

#include "testing/efb_builder.h"
#include "testing/expect_model.h"
#include "testing/run_model.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

struct ScaledConv {
  int cin = 5, cout = 7, h = 3, w = 4;
  int kernel = 1;        // 1: pointwise; 3: 3×3 with pad 1 (refused with a scale)
  int scale_elems = -1;  // -1: cin
  bool bias = true;
  bool scale_constant = false;
  int64_t scratch_bytes = -1;  // -1: W' = cout·cin floats (pointwise: no path scratch before it;
                               // what every plan gave before late convs scaled the image instead)
};

struct Built {
  std::vector<uint8_t> model;
  std::vector<std::vector<float>> feeds;
  std::vector<float> want;
};

Built Build(const ScaledConv& c) {
  const int k = c.kernel, scale_elems = c.scale_elems < 0 ? c.cin : c.scale_elems;
  const std::vector<float> x = RandomVector(size_t(c.cin) * c.h * c.w, 1, -2, 2);
  const std::vector<float> w = RandomVector(size_t(c.cout) * c.cin * k * k, 2, -1, 1);
  const std::vector<float> b = RandomVector(c.cout, 3, -1, 1);
  const std::vector<float> s = RandomVector(scale_elems, 4, 0, 1);
  EfbBuilder e;
  Built r;
  const int xi = e.AddInput("x", {1, c.cin, c.h, c.w});
  r.feeds.push_back(x);
  const int si = c.scale_constant ? e.AddConstant("s", {1, scale_elems, 1, 1}, s)
                                  : e.AddInput("s", {1, scale_elems, 1, 1});
  if (!c.scale_constant) r.feeds.push_back(s);
  const int wi = e.AddConstant("w", {c.cout, c.cin, k, k}, w);
  const int bi = c.bias ? e.AddConstant("b", {c.cout}, b) : -1;
  const int yi = e.AddTensor("y", {1, c.cout, c.h, c.w});
  fb::ConvOptionsT o;
  const int pad = k / 2;
  o.kernel = {k, k};
  o.strides = {1, 1};
  o.dilations = {1, 1};
  o.pads = {pad, pad, pad, pad};
  o.group = 1;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  const uint64_t scratch =
      c.scratch_bytes >= 0 ? uint64_t(c.scratch_bytes) : uint64_t(c.cout) * c.cin * sizeof(float);
  e.AddOp(fb::OpType::Conv, "project", {xi, wi, bi, si}, {yi}, std::move(u), scratch);
  e.AddOutput(yi);
  r.model = e.Finish();
  if (k == 1 && scale_elems == c.cin)
    for (int oc = 0; oc < c.cout; ++oc)
      for (int p = 0; p < c.h * c.w; ++p) {
        double acc = c.bias ? b[oc] : 0.0;
        for (int ic = 0; ic < c.cin; ++ic)
          acc += double(w[oc * c.cin + ic]) * s[ic] * x[ic * c.h * c.w + p];
        r.want.push_back(static_cast<float>(std::max(acc, 0.0)));
      }
  return r;
}

void ExpectMatches(const ScaledConv& c) {
  const Built b = Build(c);
  ExpectOutputOnEveryIsa(b.model, b.feeds, b.want, 1e-5);
}

// Fails Prepare with a message naming the op and containing `what`.
void ExpectRefused(const ScaledConv& c, const std::string& what) {
  const Built b = Build(c);
  ExpectRefusedNaming(b.model, b.feeds, "project", what);
}

TEST(ConvChannelScale, MatchesReference) {
  ExpectMatches(ScaledConv{});
  ScaledConv no_bias;
  no_bias.bias = false;
  ExpectMatches(no_bias);
  ScaledConv wide;  // K and M past a register, N odd
  wide.cin = 37, wide.cout = 19, wide.h = 5, wide.w = 7;
  wide.scale_constant = true;
  ExpectMatches(wide);
  ScaledConv one;
  one.cin = one.cout = one.h = one.w = 1;
  ExpectMatches(one);
  // Fewer pixels than output channels (a late SE block): the image is scaled, not W; with an
  // older plan's W'-sized scratch and with exactly the image's.
  ScaledConv late;
  late.cin = 13, late.cout = 40, late.h = 2, late.w = 3;
  ExpectMatches(late);
  late.scratch_bytes = 13 * 6 * 4;
  ExpectMatches(late);
}

TEST(ConvChannelScale, RefusesBadModels) {
  ScaledConv wrong_length;
  wrong_length.scale_elems = 6;
  ExpectRefused(wrong_length, "channel scale (input 3) has 6 values for 5 input channels");
  ScaledConv not_pointwise;
  not_pointwise.kernel = 3;
  ExpectRefused(not_pointwise, "needs a pointwise");
  ScaledConv small_scratch;
  small_scratch.scratch_bytes = 7 * 5 * 4 - 4;
  ExpectRefused(small_scratch, "scratch bytes");
  ScaledConv late_small_scratch;
  late_small_scratch.cin = 13, late_small_scratch.cout = 40, late_small_scratch.h = 2,
  late_small_scratch.w = 3;
  late_small_scratch.scratch_bytes = 13 * 6 * 4 - 4;
  ExpectRefused(late_small_scratch, "scratch bytes");
}

}  // namespace
}  // namespace edgefold::testing
