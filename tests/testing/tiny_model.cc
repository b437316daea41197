#include "testing/tiny_model.h"

#include <algorithm>

namespace edgefold::testing {

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
  b.AddOp(fb::OpType::Conv, "conv", {x, w, cb}, {c}, ConvOptions(3, 1, 1, fb::ActivationKind::Relu),
          2 * 9 * 25 * 4);
  AddClassifierHead(b, c, 1, 3, m.fc_w, m.fc_b);
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
              acc +=
                  double(m.conv_w[((oc * 2 + ic) * 3 + ky) * 3 + kx]) * x[(ic * 5 + iy) * 5 + ix];
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
