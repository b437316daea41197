#include "testing/tiny_model.h"

#include <algorithm>
#include <random>

namespace edgefold::testing {

std::vector<float> RandomVector(size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

TinyModel MakeTinyModel() {
  TinyModel m;
  m.conv_w = RandomVector(3 * 2 * 3 * 3, 1);
  m.conv_b = RandomVector(3, 2);
  m.fc_w = RandomVector(3 * 4, 3);
  m.fc_b = RandomVector(4, 4);
  EfbBuilder b;
  const int x = b.AddInput("x", {1, 2, 5, 5});
  const int w = b.AddConstant("conv.w", {3, 2, 3, 3}, m.conv_w);
  const int cb = b.AddConstant("conv.b", {3}, m.conv_b);
  const int c = b.AddTensor("conv.out", {1, 3, 5, 5});
  fb::ConvOptionsT conv;
  conv.kernel = {3, 3};
  conv.strides = {1, 1};
  conv.dilations = {1, 1};
  conv.pads = {1, 1, 1, 1};
  conv.group = 1;
  conv.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion u;
  u.Set(std::move(conv));
  b.AddOp(fb::OpType::Conv, "conv", {x, w, cb}, {c}, std::move(u), 2 * 9 * 25 * 4);
  const int g = b.AddTensor("gap", {1, 3, 1, 1});
  fb::GlobalPoolOptionsT gp;
  gp.kind = fb::PoolKind::Average;
  u.Set(std::move(gp));
  b.AddOp(fb::OpType::GlobalPool, "gap", {c}, {g}, std::move(u));
  const int r = b.AddTensor("flat", {1, 3});
  u.Set(fb::ReshapeOptionsT());
  b.AddOp(fb::OpType::Reshape, "flatten", {g}, {r}, std::move(u));
  const int fw = b.AddConstant("fc.w", {3, 4}, m.fc_w);
  const int fbias = b.AddConstant("fc.b", {4}, m.fc_b);
  const int y = b.AddTensor("y", {1, 4});
  u.Set(fb::GemmOptionsT());
  b.AddOp(fb::OpType::Gemm, "fc", {r, fw, fbias}, {y}, std::move(u));
  b.AddOutput(y);
  m.bytes = b.Finish();
  return m;
}

std::vector<float> TinyModelReference(const TinyModel& m, const std::vector<float>& x) {
  double pooled[3] = {};
  for (int oc = 0; oc < 3; ++oc) {
    for (int oy = 0; oy < 5; ++oy)
      for (int ox = 0; ox < 5; ++ox) {
        double acc = m.conv_b[oc];
        for (int ic = 0; ic < 2; ++ic)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = oy - 1 + ky, ix = ox - 1 + kx;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
              acc += double(m.conv_w[((oc * 2 + ic) * 3 + ky) * 3 + kx]) * x[(ic * 5 + iy) * 5 + ix];
            }
        pooled[oc] += std::max(acc, 0.0) / 25.0;
      }
  }
  std::vector<float> y(4);
  for (int n = 0; n < 4; ++n) {
    double acc = m.fc_b[n];
    for (int k = 0; k < 3; ++k) acc += pooled[k] * m.fc_w[k * 4 + n];
    y[n] = static_cast<float>(acc);
  }
  return y;
}

}  // namespace edgefold::testing
