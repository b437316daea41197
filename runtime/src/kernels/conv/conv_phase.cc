#include "kernels/conv/conv_phase.h"

#include <algorithm>
#include <cstring>

#include "base/size_math.h"

namespace edgefold::kernels {
namespace {

// Plane extent along one axis: the padded pixels the outputs read, (out−1)·stride + (k−1)·dil + 1,
// split into `stride` phases.
size_t PlaneExtent(size_t out, size_t stride, size_t kernel, size_t dilation) {
  const size_t padded = AddSat(AddSat(MulSat(out - 1, stride), MulSat(kernel - 1, dilation)), 1);
  return padded == kSizeSaturated ? kSizeSaturated : (padded + stride - 1) / stride;
}

// Plane row or column q of phase `phase` reads input index q·stride + phase − pad; the q with
// that index inside [0, in) form [*lo, *hi) (clamped to [0, plane)).
void ValidRange(size_t plane, size_t stride, size_t phase, size_t pad, size_t in, size_t* lo, size_t* hi) {
  const long shift = static_cast<long>(pad) - static_cast<long>(phase);   // q·stride ≥ shift
  const long s = static_cast<long>(stride);
  const long first = shift <= 0 ? 0 : (shift + s - 1) / s;
  const long last_in = static_cast<long>(in) - 1 + shift;                  // q·stride ≤ last_in
  const long end = last_in < 0 ? 0 : last_in / s + 1;
  *lo = std::min(static_cast<size_t>(first), plane);
  *hi = std::max(*lo, std::min(static_cast<size_t>(end), plane));
}

}  // namespace

void FillPhasePlanes(const Conv2dShape& s, const ConvPhaseLayout& l, const float* x_group, float* planes,
                     size_t c_begin, size_t c_end) {
  const size_t channels = s.in_c / s.group;
  c_end = std::min(c_end, channels);
  for (size_t c = c_begin; c < c_end; ++c) {
    const float* xc = x_group + c * s.in_h * s.in_w;
    for (size_t a = 0; a < s.stride_h; ++a) {
      size_t r_lo = 0, r_hi = 0;
      ValidRange(l.plane_h, s.stride_h, a, s.pad_top, s.in_h, &r_lo, &r_hi);
      for (size_t b = 0; b < s.stride_w; ++b) {
        float* plane = planes + c * l.channel_floats + (a * s.stride_w + b) * l.plane_floats;
        size_t q_lo = 0, q_hi = 0;
        ValidRange(l.plane_w, s.stride_w, b, s.pad_left, s.in_w, &q_lo, &q_hi);
        std::memset(plane, 0, r_lo * l.plane_w * sizeof(float));
        for (size_t r = r_lo; r < r_hi; ++r) {
          float* dst = plane + r * l.plane_w;
          for (size_t q = 0; q < q_lo; ++q) dst[q] = 0.0f;   // pads are a few floats: no libc call
          for (size_t q = q_hi; q < l.plane_w; ++q) dst[q] = 0.0f;
          if (q_lo == q_hi) continue;
          const float* src = xc + (r * s.stride_h + a - s.pad_top) * s.in_w + (q_lo * s.stride_w + b - s.pad_left);
          if (s.stride_w == 1) {
            std::memcpy(dst + q_lo, src, (q_hi - q_lo) * sizeof(float));
          } else if (s.stride_w == 2) {   // constant strides the compiler vectorizes (shuffles)
            for (size_t q = 0; q < q_hi - q_lo; ++q) dst[q_lo + q] = src[2 * q];
          } else if (s.stride_w == 4) {   // Winograd F(4×4, 3×3)'s column planes
            for (size_t q = 0; q < q_hi - q_lo; ++q) dst[q_lo + q] = src[4 * q];
          } else {
            for (size_t q = q_lo; q < q_hi; ++q, src += s.stride_w) dst[q] = *src;
          }
        }
        std::memset(plane + r_hi * l.plane_w, 0, (l.plane_h - r_hi) * l.plane_w * sizeof(float));
      }
    }
  }
  if (c_end < channels) return;
  const size_t used = channels * l.channel_floats;   // slack past the last plane: junk reads
  std::memset(planes + used, 0, (l.planes_floats - used) * sizeof(float));
}

ConvPhaseLayout MakeConvPhaseLayout(const Conv2dShape& s) {
  ConvPhaseLayout l;
  l.scratch_bytes = kSizeSaturated;
  if (s.out_h == 0 || s.out_w == 0 || s.stride_h == 0 || s.stride_w == 0 || s.group == 0) return l;
  const size_t cin_g = s.in_c / s.group, cout_g = s.out_c / s.group;
  l.plane_h = PlaneExtent(s.out_h, s.stride_h, s.kh, s.dilation_h);
  l.plane_w = PlaneExtent(s.out_w, s.stride_w, s.kw, s.dilation_w);
  l.plane_floats = MulSat(l.plane_h, l.plane_w);
  l.channel_floats = MulSat(MulSat(s.stride_h, s.stride_w), l.plane_floats);
  l.gemm_n = AddSat(MulSat(s.out_h - 1, l.plane_w), s.out_w);
  // With junk columns anyway, round the GEMM's columns up to whole 16-float registers so no
  // tile takes the narrow tail path (7×7: 61 → 64 columns).
  if (l.plane_w != s.out_w) l.gemm_n = RoundUpSat(l.gemm_n, 16);
  // The last tap's run ends ⌊(kw−1)·dw / sw⌋ floats, plus the rounding, past the last plane.
  const size_t slack = AddSat(MulSat(s.kw - 1, s.dilation_w) / s.stride_w, 16);
  l.planes_floats = RoundUpSat(AddSat(MulSat(cin_g, l.channel_floats), slack), 16);
  l.row_gemms = l.plane_w != s.out_w && s.out_w >= kPhaseRowGemmMinWidth;
  l.pitched_floats = l.plane_w == s.out_w || l.row_gemms ? 0 : MulSat(cout_g, l.gemm_n);
  l.k = MulSat(MulSat(cin_g, s.kh), s.kw);
  l.offsets_bytes = RoundUpSat(MulSat(l.k, sizeof(uint32_t)), 64);
  if (l.planes_floats > UINT32_MAX) return l;   // offsets are 32-bit
  l.scratch_bytes =
      AddSat(MulSat(AddSat(l.planes_floats, l.pitched_floats), sizeof(float)), l.offsets_bytes);
  return l;
}

void Conv2dPhaseFill(const Conv2dShape& s, const ConvPhaseLayout& l, const float* x_group, float* scratch,
                     size_t c_begin, size_t c_end) {
  float* planes = scratch;
  auto* offsets = reinterpret_cast<uint32_t*>(planes + l.planes_floats + l.pitched_floats);
  FillPhasePlanes(s, l, x_group, planes, c_begin, c_end);
  c_end = std::min(c_end, s.in_c / s.group);
  uint32_t* off = offsets + c_begin * s.kh * s.kw;
  for (size_t c = c_begin; c < c_end; ++c)
    for (size_t ky = 0; ky < s.kh; ++ky)
      for (size_t kx = 0; kx < s.kw; ++kx) {
        const size_t dy = ky * s.dilation_h, dx = kx * s.dilation_w;
        const size_t phase = (dy % s.stride_h) * s.stride_w + dx % s.stride_w;
        *off++ = static_cast<uint32_t>(c * l.channel_floats + phase * l.plane_floats +
                                       dy / s.stride_h * l.plane_w + dx / s.stride_w);
      }
}

void Conv2dPhaseRows(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& l, const float* w_group,
                     const float* bias, Activation act, float* y_group, float* scratch, size_t o_begin,
                     size_t o_end) {
  const float* planes = scratch;
  float* pitched = scratch + l.planes_floats;
  const auto* offsets = reinterpret_cast<const uint32_t*>(pitched + l.pitched_floats);
  const size_t out_plane = s.out_h * s.out_w;
  const bool direct = l.plane_w == s.out_w;   // no junk columns
  GemmParams p;
  p.m = o_end - o_begin, p.n = l.gemm_n, p.k = l.k;
  p.lda = l.k, p.ldc = direct ? out_plane : l.gemm_n;
  p.b_row_offsets = offsets;
  p.bias = bias != nullptr ? bias + o_begin : nullptr, p.bias_per_row = true, p.act = act;
  if (l.row_gemms) {   // output row oy reads every tap's run oy·plane_w further on
    p.n = s.out_w, p.ldc = out_plane;
    for (size_t oy = 0; oy < s.out_h; ++oy)
      t.gemm(p, w_group + o_begin * l.k, planes + oy * l.plane_w, y_group + o_begin * out_plane + oy * s.out_w);
    return;
  }
  float* rows = direct ? y_group + o_begin * out_plane : pitched + o_begin * l.gemm_n;
  t.gemm(p, w_group + o_begin * l.k, planes, rows);
  if (direct) return;
  for (size_t o = o_begin; o < o_end; ++o)
    for (size_t oy = 0; oy < s.out_h; ++oy)
      std::memcpy(y_group + o * out_plane + oy * s.out_w, pitched + o * l.gemm_n + oy * l.plane_w,
                  s.out_w * sizeof(float));
}

void Conv2dPhaseGemm(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& l,
                     const float* x_group, const float* w_group, const float* bias, Activation act,
                     float* y_group, float* scratch) {
  Conv2dPhaseFill(s, l, x_group, scratch);
  Conv2dPhaseRows(t, s, l, w_group, bias, act, y_group, scratch, 0, s.out_c / s.group);
}

}  // namespace edgefold::kernels
