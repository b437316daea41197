#include "kernels/act_scalar.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// Direct ConvTranspose of one image, no scratch (shape convention: kernels/conv/conv_transpose.h):
//   y[oc, oy, ox] = act(b[oc] + Σ_{ic ∈ group(oc), ky, kx} w[ic, oc, ky, kx]·x[ic, iy, ix])
//   over iy·sh − pt + ky·dh = oy, ix·sw − pl + kx·dw = ox.
// Gathered per output value (each y written once): a tap contributes when oy + pt − ky·dh is
// a non-negative multiple of sh that lands inside x. w_packed[g][j][ky][kx][i] holds
// w[g·cin_g + i, g·cout_g + j, ky, kx].
void ConvTranspose2d(const Conv2dShape& s, const float* x, const float* w_packed, const float* bias,
                     Activation act, float* y) {
  const size_t cout_g = s.in_c / s.group, cin_g = s.out_c / s.group;
  const long sh = static_cast<long>(s.stride_h), sw = static_cast<long>(s.stride_w);
  for (size_t oc = 0; oc < s.in_c; ++oc) {
    const size_t g = oc / cout_g, j = oc % cout_g;
    const float* xg = x + g * cin_g * s.out_h * s.out_w;
    for (size_t oy = 0; oy < s.in_h; ++oy) {
      for (size_t ox = 0; ox < s.in_w; ++ox) {
        float acc = bias != nullptr ? bias[oc] : 0.0f;
        for (size_t ky = 0; ky < s.kh; ++ky) {
          const long ny = static_cast<long>(oy + s.pad_top) - static_cast<long>(ky * s.dilation_h);
          if (ny < 0 || ny % sh != 0 || ny / sh >= static_cast<long>(s.out_h)) continue;
          for (size_t kx = 0; kx < s.kw; ++kx) {
            const long nx =
                static_cast<long>(ox + s.pad_left) - static_cast<long>(kx * s.dilation_w);
            if (nx < 0 || nx % sw != 0 || nx / sw >= static_cast<long>(s.out_w)) continue;
            const size_t at = static_cast<size_t>(ny / sh) * s.out_w + static_cast<size_t>(nx / sw);
            const float* wt = w_packed + (((g * cout_g + j) * s.kh + ky) * s.kw + kx) * cin_g;
            for (size_t i = 0; i < cin_g; ++i) acc += wt[i] * xg[i * s.out_h * s.out_w + at];
          }
        }
        y[(oc * s.in_h + oy) * s.in_w + ox] = ActOne(acc, act);
      }
    }
  }
}

}  // namespace edgefold::kernels::ref
