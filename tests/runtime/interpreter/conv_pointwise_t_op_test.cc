// Conv ops whose weights the compiler stored transposed (WeightPacking PointwiseTransposed,
// Wᵀ [Cin, Cout, 1, 1]), built here without the compiler: on every ISA against a double-precision
// pointwise convolution (channel counts that are not a multiple of any register width, planes
// of fewer and more pixels than a block), the models Prepare must refuse, and the registrations
// that link the path.
#include <gtest/gtest.h>

#include <algorithm>

#include "testing/efb_builder.h"
#include "testing/expect_model.h"
#include "testing/run_model.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

struct PointwiseConv {
  int cin = 21, cout = 37, h = 3, w = 5, batch = 2;
  std::vector<int> w_shape;  // empty: [cin, cout, 1, 1]
  int kernel = 1;            // a 3 is refused (not pointwise)
  bool bias = true;
};

struct Built {
  std::vector<uint8_t> model;
  std::vector<float> x, want;
};

Built Build(const PointwiseConv& c) {
  Built r;
  const size_t pixels = size_t(c.h) * c.w;
  r.x = RandomVector(size_t(c.batch) * c.cin * pixels, 1, -2, 2);
  const std::vector<float> wt = RandomVector(size_t(c.cin) * c.cout, 2, -1, 1);
  const std::vector<float> b = RandomVector(c.cout, 3, -1, 1);
  EfbBuilder e;
  const int xi = e.AddInput("x", {c.batch, c.cin, c.h, c.w});
  const std::vector<int> ws = c.w_shape.empty() ? std::vector<int>{c.cin, c.cout, 1, 1} : c.w_shape;
  const int wi = e.AddConstant("wt", ws, wt);
  const int bi = c.bias ? e.AddConstant("b", {c.cout}, b) : -1;
  const int yi = e.AddTensor("y", {c.batch, c.cout, c.h, c.w});
  fb::ConvOptionsT o;
  o.kernel = {c.kernel, c.kernel};
  o.strides = {1, 1};
  o.dilations = {1, 1};
  const int pad = c.kernel / 2;
  o.pads = {pad, pad, pad, pad};
  o.group = 1;
  o.packing = fb::WeightPacking::PointwiseTransposed;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion opts;
  opts.Set(std::move(o));
  e.AddOp(fb::OpType::Conv, "pconv", {xi, wi, bi}, {yi}, std::move(opts), 0);
  e.AddOutput(yi);
  r.model = e.Finish();
  for (int n = 0; n < c.batch; ++n)
    for (int oc = 0; oc < c.cout; ++oc)
      for (size_t j = 0; j < pixels; ++j) {
        double acc = c.bias ? b[oc] : 0.0;
        for (int ic = 0; ic < c.cin; ++ic)
          acc += double(wt[size_t(ic) * c.cout + oc]) * r.x[(size_t(n) * c.cin + ic) * pixels + j];
        r.want.push_back(static_cast<float>(std::max(acc, 0.0)));
      }
  return r;
}

TEST(ConvPointwiseTransposedOp, MatchesAPointwiseConvolution) {
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

void ExpectRefused(const PointwiseConv& c, const std::string& what) {
  const Built b = Build(c);
  ExpectRefusedNaming(b.model, {b.x}, "pconv", what);
}

TEST(ConvPointwiseTransposedOp, RefusesBadModels) {
  PointwiseConv plain_shape;  // W as [Cout, Cin, 1, 1]
  plain_shape.w_shape = {37, 21, 1, 1};
  ExpectRefused(plain_shape, "W [Cin, Cout, 1, 1]");
  PointwiseConv three_by_three;
  three_by_three.kernel = 3;
  ExpectRefused(three_by_three, "1x1 stride-1 unpadded group-1 conv");
}

// Registered with only the plain paths (OpResolver::AddConvPlain) or the expansion, Conv refuses
// transposed weights by name; AddConvWinograd (weights in another layout) computes the bits
// AddConv (every schedule) computes.
TEST(ConvPointwiseTransposedOp, RunsOnlyWhereItsScheduleIsRegistered) {
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
    EXPECT_NE(r.log.find("transposed pointwise weights"), std::string::npos) << r.log;
  }
}

}  // namespace
}  // namespace edgefold::testing
