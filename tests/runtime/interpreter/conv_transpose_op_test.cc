// The ConvTranspose op: the GEMM + col2im path (planned scratch) and the direct path (a plan
// with no scratch) on every ISA against a double-precision scatter, batch 2, grouped, with
// output padding and a fused Relu; and the models Prepare must refuse, naming the op.
#include <gtest/gtest.h>

#include <cmath>

#include "testing/efb_builder.h"
#include "testing/expect_model.h"
#include "testing/run_model.h"

namespace edgefold::testing {
namespace {

// x [2, 4, 3, 5], group 2, Cout 6, 3×3, stride 2, pads 1, output padding 1 → y [2, 6, 6, 10].
struct Up {
  int scratch_bytes = 3 * 9 * 15 * 4;  // one group's GEMM product: (Cout/g)·kh·kw × H·W floats
  std::vector<int32_t> w_shape = {2, 3, 3, 3, 2};
  std::vector<int32_t> y_shape = {2, 6, 6, 10};
};

struct Built {
  std::vector<uint8_t> model;
  std::vector<float> x, want;
};

Built Build(const Up& c) {
  const int n = 2, cin = 4, cout = 6, g = 2, cg = cin / g, og = cout / g, h = 3, w = 5, k = 3,
            s = 2, pad = 1;
  const int oh = 6, ow = 10;
  Built r;
  r.x = RandomVector(size_t(n) * cin * h * w, 1, -2, 2);
  const std::vector<float> packed =
      RandomVector(size_t(g) * og * k * k * cg, 2, -1, 1);  // [g][j][ky][kx][i]
  const std::vector<float> b = RandomVector(cout, 3, -1, 1);
  EfbBuilder e;
  const int xi = e.AddInput("x", {n, cin, h, w});
  size_t w_elems = 1;
  for (int32_t d : c.w_shape) w_elems *= size_t(d);
  const int wi = e.AddConstant("w", c.w_shape, RandomVector(w_elems, 2, -1, 1));
  const int bi = e.AddConstant("b", {cout}, b);
  const int yi = e.AddTensor("y", c.y_shape);
  fb::ConvTransposeOptionsT o;
  o.kernel = {k, k};
  o.strides = {s, s};
  o.dilations = {1, 1};
  o.pads = {pad, pad, pad, pad};
  o.group = g;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  e.AddOp(fb::OpType::ConvTranspose, "up", {xi, wi, bi}, {yi}, std::move(u),
          uint64_t(c.scratch_bytes));
  e.AddOutput(yi);
  r.model = e.Finish();
  std::vector<double> acc(size_t(n) * cout * oh * ow);
  for (int in = 0; in < n; ++in)
    for (int oc = 0; oc < cout; ++oc)
      for (int p = 0; p < oh * ow; ++p) acc[(in * cout + oc) * oh * ow + p] = b[oc];
  for (int in = 0; in < n; ++in)
    for (int ic = 0; ic < cin; ++ic)
      for (int j = 0; j < og; ++j)
        for (int iy = 0; iy < h; ++iy)
          for (int ix = 0; ix < w; ++ix)
            for (int ky = 0; ky < k; ++ky)
              for (int kx = 0; kx < k; ++kx) {
                const int y = iy * s - pad + ky, x = ix * s - pad + kx, gi = ic / cg,
                          oc = gi * og + j;
                if (y < 0 || x < 0 || y >= oh || x >= ow) continue;
                acc[((in * cout + oc) * oh + y) * ow + x] +=
                    double(packed[(((gi * og + j) * k + ky) * k + kx) * cg + ic % cg]) *
                    r.x[((in * cin + ic) * h + iy) * w + ix];
              }
  for (double v : acc) r.want.push_back(static_cast<float>(std::max(v, 0.0)));
  return r;
}

TEST(ConvTransposeOp, GemmAndDirectPathsMatchScatter) {
  Up direct;
  direct.scratch_bytes = 0;
  for (const Up& c : {Up(), direct}) {
    const Built b = Build(c);
    ExpectOutputOnEveryIsa(b.model, {b.x}, b.want, 1e-5,
                           "scratch " + std::to_string(c.scratch_bytes));
  }
}

void ExpectRefused(const Up& c, Status status, const std::string& what) {
  const Built b = Build(c);
  ExpectRefusedNaming(b.model, {b.x}, "ConvTranspose 'up'", what, status);
}

TEST(ConvTransposeOp, RefusesBadModels) {
  Up small_scratch;
  small_scratch.scratch_bytes = 64;
  ExpectRefused(small_scratch, Status::kInvalidModel, "scratch bytes");
  Up wrong_w;
  wrong_w.w_shape = {2, 3, 3, 3, 3};  // Cin/g = 3 for 4 input channels in 2 groups
  ExpectRefused(wrong_w, Status::kShapeMismatch, "W shape");
  Up wrong_y;
  wrong_y.y_shape = {2, 6, 8, 10};  // output padding 3 ≥ stride 2
  ExpectRefused(wrong_y, Status::kShapeMismatch, "Y shape");
}

}  // namespace
}  // namespace edgefold::testing
