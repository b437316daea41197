#include "kernels/conv/conv_transpose.h"

namespace edgefold::kernels {

void ConvTranspose2dGemm(const KernelTable& t, const Conv2dShape& s, const float* x,
                         const float* w_packed, const float* bias, Activation act, float* y,
                         float* scratch) {
  const size_t y_plane = s.in_h * s.in_w, x_plane = s.out_h * s.out_w;
  const size_t cout_g = s.in_c / s.group, cin_g = s.out_c / s.group;
  const size_t rows = cout_g * s.kh * s.kw;  // rows of A_g
  const bool pointwise = ConvTransposeIsPointwise(s);
  if (!pointwise) {  // bias first: the scatter adds onto it, positions no tap reaches keep it
    for (size_t c = 0; c < s.in_c; ++c) {
      const float v = bias != nullptr ? bias[c] : 0.0f;
      float* yc = y + c * y_plane;
      for (size_t i = 0; i < y_plane; ++i) yc[i] = v;
    }
  }
  for (size_t g = 0; g < s.group; ++g) {
    GemmParams p;
    p.m = rows;
    p.n = x_plane;
    p.k = cin_g;
    p.lda = cin_g;
    p.ldb = x_plane;
    p.ldc = x_plane;
    if (pointwise) {  // y_g = act(A_g · x_g + b_g) in one GEMM
      p.bias = bias != nullptr ? bias + g * cout_g : nullptr;
      p.bias_per_row = true;
      p.act = act;
      t.gemm(p, w_packed + g * rows * cin_g, x + g * cin_g * x_plane, y + g * cout_g * y_plane);
      continue;
    }
    t.gemm(p, w_packed + g * rows * cin_g, x + g * cin_g * x_plane, scratch);
    t.col2im(s, scratch, y + g * cout_g * y_plane);
  }
  if (!pointwise && act.kind != ActKind::kNone) t.activation(y, y, s.in_c * y_plane, act);
}

}  // namespace edgefold::kernels
