// Conv ops whose weights the compiler stored as Winograd filters (WeightPacking Winograd2x3 /
// Winograd4x3), built here without the compiler: on every ISA against a double-precision direct
// convolution, and the models Prepare must refuse (filters of the other tile's shape, too little
// scratch, a packing this runtime does not know).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/conv/conv_winograd.h"
#include "testing/efb_builder.h"
#include "testing/expect_model.h"
#include "testing/run_model.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

struct WinogradConv {
  fb::WeightPacking packing = fb::WeightPacking::Winograd4x3;
  int cin = 9, cout = 11, h = 13, w = 18;  // 13×18 output: partial tiles both ways
  int alpha = -1;                          // W's first two dims; -1: the packing's
  int64_t scratch_bytes = -1;              // -1: MakeWinogradLayout's
};

struct Built {
  std::vector<uint8_t> model;
  std::vector<float> x, want;
};

Built Build(const WinogradConv& c) {
  const size_t tile = c.packing == fb::WeightPacking::Winograd4x3 ? 4 : 2;
  const int alpha = c.alpha > 0 ? c.alpha : static_cast<int>(tile) + 2;
  Built r;
  r.x = RandomVector(size_t(c.cin) * c.h * c.w, 1, -2, 2);
  const std::vector<float> g = RandomVector(size_t(c.cout) * c.cin * 9, 2, -1, 1);
  const std::vector<float> b = RandomVector(c.cout, 3, -1, 1);
  std::vector<float> u(size_t(alpha) * alpha * c.cout * c.cin);
  kernels::WinogradTransformFilters(g.data(), c.cout, c.cin, static_cast<size_t>(alpha) - 2,
                                    u.data());
  kernels::Conv2dShape s;
  s.in_c = c.cin, s.out_c = c.cout, s.in_h = s.out_h = c.h, s.in_w = s.out_w = c.w, s.kh = s.kw = 3;
  s.pad_top = s.pad_left = 1;
  EfbBuilder e;
  const int xi = e.AddInput("x", {1, c.cin, c.h, c.w});
  const int wi = e.AddConstant("u", {alpha, alpha, c.cout, c.cin}, u);
  const int bi = e.AddConstant("b", {c.cout}, b);
  const int yi = e.AddTensor("y", {1, c.cout, c.h, c.w});
  fb::ConvOptionsT o;
  o.kernel = {3, 3};
  o.strides = {1, 1};
  o.dilations = {1, 1};
  o.pads = {1, 1, 1, 1};
  o.group = 1;
  o.packing = c.packing;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion opts;
  opts.Set(std::move(o));
  const uint64_t scratch = c.scratch_bytes >= 0
                               ? uint64_t(c.scratch_bytes)
                               : uint64_t(kernels::MakeWinogradLayout(s, tile).scratch_bytes);
  e.AddOp(fb::OpType::Conv, "wconv", {xi, wi, bi}, {yi}, std::move(opts), scratch);
  e.AddOutput(yi);
  r.model = e.Finish();
  for (int oc = 0; oc < c.cout; ++oc)
    for (int oy = 0; oy < c.h; ++oy)
      for (int ox = 0; ox < c.w; ++ox) {
        double acc = b[oc];
        for (int ic = 0; ic < c.cin; ++ic)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = oy + ky - 1, ix = ox + kx - 1;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              acc += double(g[((oc * c.cin + ic) * 3 + ky) * 3 + kx]) *
                     r.x[(ic * c.h + iy) * c.w + ix];
            }
        r.want.push_back(static_cast<float>(std::max(acc, 0.0)));
      }
  return r;
}

TEST(ConvWinogradOp, BothTileSizesMatchADirectConvolution) {
  for (const fb::WeightPacking packing :
       {fb::WeightPacking::Winograd2x3, fb::WeightPacking::Winograd4x3}) {
    WinogradConv c;
    c.packing = packing;
    const Built b = Build(c);
    ExpectOutputOnEveryIsa(b.model, {b.x}, b.want, 2e-5, "packing " + std::to_string(int(packing)));
  }
}

void ExpectRefused(const WinogradConv& c, const std::string& what) {
  const Built b = Build(c);
  ExpectRefusedNaming(b.model, {b.x}, "wconv", what);
}

TEST(ConvWinogradOp, RefusesBadModels) {
  WinogradConv f2_filters_as_f4;  // [4, 4, …] filters marked F(4,3)
  f2_filters_as_f4.alpha = 4;
  ExpectRefused(f2_filters_as_f4, "W [6, 6, Cout, Cin]");
  WinogradConv f4_filters_as_f2;
  f4_filters_as_f2.packing = fb::WeightPacking::Winograd2x3;
  f4_filters_as_f2.alpha = 6;
  ExpectRefused(f4_filters_as_f2, "W [4, 4, Cout, Cin]");
  WinogradConv small_scratch;
  small_scratch.scratch_bytes = 1024;
  ExpectRefused(small_scratch, "scratch bytes");
  WinogradConv unknown;
  unknown.packing = static_cast<fb::WeightPacking>(7);
  unknown.alpha = 6;
  ExpectRefused(unknown, "unknown weight packing");
}

// Registered with only the plain paths (OpResolver::AddConvPlain), Conv refuses Winograd weights
// by name; with AddConvWinograd it computes the bits AddConv (every schedule) computes.
TEST(ConvWinogradOp, RunsOnlyWhereItsScheduleIsRegistered) {
  const Built b = Build(WinogradConv());
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
    EXPECT_NE(r.log.find("wconv"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("AddConvWinograd"), std::string::npos) << r.log;
  }
}

}  // namespace
}  // namespace edgefold::testing
