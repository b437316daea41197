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
void ValidRange(size_t plane, size_t stride, size_t phase, size_t pad, size_t in, size_t* lo,
                size_t* hi) {
  const long shift = static_cast<long>(pad) - static_cast<long>(phase);  // q·stride ≥ shift
  const long s = static_cast<long>(stride);
  const long first = shift <= 0 ? 0 : (shift + s - 1) / s;
  const long last_in = static_cast<long>(in) - 1 + shift;  // q·stride ≤ last_in
  const long end = last_in < 0 ? 0 : last_in / s + 1;
  *lo = std::min(static_cast<size_t>(first), plane);
  *hi = std::max(*lo, std::min(static_cast<size_t>(end), plane));
}

}  // namespace

// Input row src (in_w floats) into row `row` of the column phases b = 0..SW−1 of one row phase
// (phase b's plane at dst + b·plane_floats), the planes already zeroed: input column x goes to
// phase (x + pad) mod SW, column (x + pad) / SW, when inside the plane and that phase is read
// (bit b of `phases`). One pass over the row for all phases, SW fixed so the grouped copy
// vectorizes (one pass per phase, with its pad columns zeroed per row, had cost a Winograd
// F(4×4) fill of 56-wide rows 9 instructions per float).
template <size_t SW>
void UnzipRow(const float* src, size_t in_w, size_t pad, size_t plane_w, size_t plane_floats,
              uint64_t phases, float* dst) {
  float* d[SW];
  bool read[SW];
  for (size_t b = 0; b < SW; ++b) d[b] = dst + b * plane_floats, read[b] = (phases >> b & 1) != 0;
  const auto put = [&](size_t col) {
    const size_t q = (col + pad) / SW, b = (col + pad) % SW;
    if (q < plane_w && read[b]) d[b][q] = src[col];
  };
  // Whole groups of SW input columns start at a column of phase 0.
  size_t x = std::min((SW - pad % SW) % SW, in_w);
  for (size_t col = 0; col < x; ++col) put(col);
  const size_t q0 = (x + pad) / SW;
  const size_t groups = q0 < plane_w ? std::min((in_w - x) / SW, plane_w - q0) : 0;
  if ((phases & ((uint64_t{1} << SW) - 1)) == (uint64_t{1} << SW) - 1) {
    // The planes never overlap the input (scratch and activations are disjoint arena ranges):
    // without ivdep GCC checked every pair of the SW + 1 pointers per row.
#pragma GCC ivdep
    for (size_t g = 0; g < groups; ++g)
      for (size_t b = 0; b < SW; ++b) d[b][q0 + g] = src[x + g * SW + b];
  } else {
    for (size_t g = 0; g < groups; ++g)
      for (size_t b = 0; b < SW; ++b)
        if (read[b]) d[b][q0 + g] = src[x + g * SW + b];
  }
  for (x += groups * SW; x < in_w; ++x) put(x);
}

void FillPhasePlanes(const Conv2dShape& s, const ConvPhaseLayout& l, const float* x_group,
                     float* planes, size_t c_begin, size_t c_end, size_t row_begin,
                     size_t row_end) {
  const size_t channels = s.in_c / s.group;
  c_end = std::min(c_end, channels);
  row_end = std::min(row_end, l.plane_h);
  const bool all_rows = row_begin == 0 && row_end == l.plane_h;
  const size_t sw = s.stride_w;
  for (size_t c = c_begin; c < c_end; ++c) {
    const float* xc = x_group + c * s.in_h * s.in_w;
    for (size_t a = 0; a < s.stride_h; ++a) {
      // Zero this row phase's planes whole (pads, unread phases: a run past a plane's end may
      // still read the next), then copy the data in.
      float* row_phase = planes + c * l.channel_floats + a * sw * l.plane_floats;
      if (all_rows) {
        std::memset(row_phase, 0, sw * l.plane_floats * sizeof(float));
      } else {
        for (size_t b = 0; b < sw; ++b)
          std::memset(row_phase + b * l.plane_floats + row_begin * l.plane_w, 0,
                      (row_end - row_begin) * l.plane_w * sizeof(float));
      }
      // The column phases of this row phase that some tap reads, in bits 0..sw−1.
      const uint64_t phases = a * sw < 64 ? l.phases_read >> (a * sw) : ~uint64_t{0};
      if (sw < 64 && (phases & ((uint64_t{1} << sw) - 1)) == 0) continue;
      size_t r_lo = 0, r_hi = 0;
      ValidRange(l.plane_h, s.stride_h, a, s.pad_top, s.in_h, &r_lo, &r_hi);
      for (size_t r = std::max(r_lo, row_begin); r < std::min(r_hi, row_end); ++r) {
        const float* src = xc + (r * s.stride_h + a - s.pad_top) * s.in_w;
        float* dst = row_phase + r * l.plane_w;
        switch (sw) {
          case 1:
            UnzipRow<1>(src, s.in_w, s.pad_left, l.plane_w, l.plane_floats, phases, dst);
            break;
          case 2:
            UnzipRow<2>(src, s.in_w, s.pad_left, l.plane_w, l.plane_floats, phases, dst);
            break;
          case 4:
            UnzipRow<4>(src, s.in_w, s.pad_left, l.plane_w, l.plane_floats, phases, dst);
            break;  // Winograd F(4×4)
          default:
            for (size_t b = 0; b < sw; ++b) {
              if (b < 64 && (phases >> b & 1) == 0) continue;
              size_t q_lo = 0, q_hi = 0;
              ValidRange(l.plane_w, sw, b, s.pad_left, s.in_w, &q_lo, &q_hi);
              for (size_t q = q_lo; q < q_hi; ++q)
                dst[b * l.plane_floats + q] = src[q * sw + b - s.pad_left];
            }
        }
      }
    }
  }
  if (c_end < channels || row_end < l.plane_h) return;
  const size_t used = channels * l.channel_floats;  // slack past the last plane: junk reads
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
  if (MulSat(s.stride_h, s.stride_w) <=
      64) {  // ky·dh mod sh repeats with period sh: ky < sh covers it
    l.phases_read = 0;
    for (size_t ky = 0; ky < std::min(s.kh, s.stride_h); ++ky)
      for (size_t kx = 0; kx < std::min(s.kw, s.stride_w); ++kx)
        l.phases_read |= uint64_t{1} << ((ky * s.dilation_h % s.stride_h) * s.stride_w +
                                         kx * s.dilation_w % s.stride_w);
  }
  l.k = MulSat(MulSat(cin_g, s.kh), s.kw);
  l.offsets_bytes = RoundUpSat(MulSat(l.k, sizeof(uint32_t)), 64);
  if (l.planes_floats > UINT32_MAX) return l;  // offsets are 32-bit
  l.scratch_bytes =
      AddSat(MulSat(AddSat(l.planes_floats, l.pitched_floats), sizeof(float)), l.offsets_bytes);
  return l;
}

namespace {

// The GEMM's row offsets of input channels [c_begin, c_end) (one per tap).
void FillPhaseOffsets(const Conv2dShape& s, const ConvPhaseLayout& l, float* scratch,
                      size_t c_begin, size_t c_end) {
  auto* offsets = reinterpret_cast<uint32_t*>(scratch + l.planes_floats + l.pitched_floats);
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

}  // namespace

void Conv2dPhaseFill(const Conv2dShape& s, const ConvPhaseLayout& l, const float* x_group,
                     float* scratch, size_t c_begin, size_t c_end) {
  FillPhasePlanes(s, l, x_group, scratch, c_begin, c_end);
  FillPhaseOffsets(s, l, scratch, c_begin, c_end);
}

void Conv2dPhaseFillRows(const Conv2dShape& s, const ConvPhaseLayout& l, const float* x_group,
                         float* scratch, size_t row_begin, size_t row_end) {
  FillPhasePlanes(s, l, x_group, scratch, 0, kAllChannels, row_begin, row_end);
  if (row_begin == 0) FillPhaseOffsets(s, l, scratch, 0, kAllChannels);
}

void Conv2dPhaseRows(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& l,
                     const float* w_group, const float* bias, Activation act, float* y_group,
                     float* scratch, size_t o_begin, size_t o_end) {
  const float* planes = scratch;
  float* pitched = scratch + l.planes_floats;
  const auto* offsets = reinterpret_cast<const uint32_t*>(pitched + l.pitched_floats);
  const size_t out_plane = s.out_h * s.out_w;
  const bool direct = l.plane_w == s.out_w;  // no junk columns
  GemmParams p;
  p.m = o_end - o_begin, p.n = l.gemm_n, p.k = l.k;
  p.lda = l.k, p.ldc = direct ? out_plane : l.gemm_n;
  p.b_row_offsets = offsets;
  p.bias = bias != nullptr ? bias + o_begin : nullptr, p.bias_per_row = true, p.act = act;
  if (l.row_gemms) {  // output row oy reads every tap's run oy·plane_w further on
    p.n = s.out_w, p.ldc = out_plane;
    for (size_t oy = 0; oy < s.out_h; ++oy)
      t.gemm(p, w_group + o_begin * l.k, planes + oy * l.plane_w,
             y_group + o_begin * out_plane + oy * s.out_w);
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

size_t Conv2dPhasePixelUnits(const Conv2dShape& s, const ConvPhaseLayout& l) {
  return l.row_gemms ? s.out_h : l.gemm_n;
}

void Conv2dPhasePixels(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& l,
                       const float* w_group, const float* bias, Activation act, float* y_group,
                       float* scratch, size_t begin, size_t end) {
  const float* planes = scratch;
  float* pitched = scratch + l.planes_floats;
  const auto* offsets = reinterpret_cast<const uint32_t*>(pitched + l.pitched_floats);
  const size_t out_plane = s.out_h * s.out_w;
  const bool direct = l.plane_w == s.out_w;
  GemmParams p;
  p.m = s.out_c / s.group, p.k = l.k;
  p.lda = l.k, p.ldc = direct || l.row_gemms ? out_plane : l.gemm_n;
  p.b_row_offsets = offsets;
  p.bias = bias, p.bias_per_row = true, p.act = act;
  if (l.row_gemms) {  // output rows [begin, end), one GEMM each
    p.n = s.out_w;
    for (size_t oy = begin; oy < end; ++oy)
      t.gemm(p, w_group, planes + oy * l.plane_w, y_group + oy * s.out_w);
    return;
  }
  p.n = end - begin;  // columns [begin, end) of every output channel
  t.gemm(p, w_group, planes + begin, (direct ? y_group : pitched) + begin);
}

void Conv2dPhaseCompact(const Conv2dShape& s, const ConvPhaseLayout& l, float* y_group,
                        const float* scratch, size_t o_begin, size_t o_end) {
  if (l.row_gemms || l.plane_w == s.out_w) return;  // written in place
  const float* pitched = scratch + l.planes_floats;
  for (size_t o = o_begin; o < o_end; ++o)
    for (size_t oy = 0; oy < s.out_h; ++oy)
      std::memcpy(y_group + o * s.out_h * s.out_w + oy * s.out_w,
                  pitched + o * l.gemm_n + oy * l.plane_w, s.out_w * sizeof(float));
}

void Conv2dPhaseGemm(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& l,
                     const float* x_group, const float* w_group, const float* bias, Activation act,
                     float* y_group, float* scratch) {
  Conv2dPhaseFill(s, l, x_group, scratch);
  Conv2dPhaseRows(t, s, l, w_group, bias, act, y_group, scratch, 0, s.out_c / s.group);
}

}  // namespace edgefold::kernels
