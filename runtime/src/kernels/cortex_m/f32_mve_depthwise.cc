// Helium (MVE-F) float depthwise convolution, 3 × 3 windows (f32_mve.h): four channels a
// vector, one lane a channel, every output position once per group of four channels:
//   acc = bias; acc = fma(x[r][t], w[r][t], acc) for the taps in the image, r then t
// (VFMA, vector by vector: the chain scalar::Conv2dDepthwiseClipped and ref::Conv2dDepthwise
// make of `acc += w·x` under contraction: the same bits). The taps inside the image are the
// same for every channel, so a border output's window is clipped once for four channels and
// summed over exactly those taps. x is gathered from the four channels' planes (VLDRW with
// offsets 0, P, 2P, 3P), the nine weight vectors gathered once per group, y scattered.
// Channel counts that are not a multiple of 4 run the scalar level's kernel.
// Relu is applied by a compare before the store; other activations over y after.
#include "kernels/cortex_m/f32_mve.h"

#if defined(EDGEFOLD_HAVE_F32_MVE)
#include <arm_mve.h>

#include "kernels/reference.h"
#include "kernels/scalar/scalar_kernels.h"

namespace edgefold::kernels::cortex_m_mve {
namespace {

constexpr size_t kMaxOutW = 256;

// [*lo, *hi): the taps j < 3 whose input index start + j lies in [0, in).
inline void Taps3(long start, long in, size_t* lo, size_t* hi) {
  *lo = static_cast<size_t>(start >= 0 ? 0 : -start > 3 ? 3 : -start);
  const long end = in - start;
  *hi = static_cast<size_t>(end <= static_cast<long>(*lo) ? static_cast<long>(*lo)
                            : end > 3                     ? 3
                                                          : end);
}

// Tap k (row R's base, column offsets Q) into acc, the weights at wv[k]; with a mask, only where
// bit k is set. In assembly: GCC spills the gathered vectors and the weights around the chain.
#define EDGEFOLD_TAP(R, Q, K)              \
  "vldrw.u32   %q[tx], [%[" #R "], %q[" #Q \
  "], uxtw #2]\n\t"                        \
  "vldrw.u32   %q[tw], [%[wv], #" #K       \
  "*16]\n\t"                               \
  "vfma.f32    %q[acc], %q[tx], %q[tw]\n\t"
#define EDGEFOLD_MASKED_TAP(R, Q, K) \
  "tst         %[mask], #(1 << " #K  \
  ")\n\t"                            \
  "beq         1f\n\t" EDGEFOLD_TAP(R, Q, K) "1:\n\t"
#define EDGEFOLD_NINE_TAPS(TAP) \
  TAP(x0, q0, 0)                \
  TAP(x0, q1, 1)                \
  TAP(x0, q2, 2)                \
  TAP(x1, q0, 3) TAP(x1, q1, 4) TAP(x1, q2, 5) TAP(x2, q0, 6) TAP(x2, q1, 7) TAP(x2, q2, 8)

// Four channels' output at one position into y (lane offsets y_off, in floats): bias + the
// taps of `mask` (bit r·3 + t) in order, x gathered from row pointers x0, x1, x2 at lane offsets
// off + t (in floats); Relu (`relu` ≠ 0) as `v < 0 ? 0 : v` (NaN and −0 pass).
template <bool kAll>
inline __attribute__((always_inline)) void Output4(const float* x0, const float* x1,
                                                   const float* x2, const float32x4_t* wv,
                                                   uint32_t mask, uint32_t relu, float32x4_t b,
                                                   uint32x4_t off0, uint32x4_t off1,
                                                   uint32x4_t off2, uint32x4_t y_off, float* y) {
  float32x4_t acc = b, tx, tw;
#define EDGEFOLD_STORE              \
  "cbz         %[relu], 2f\n\t"     \
  "vpt.f32     lt, %q[acc], zr\n\t" \
  "vmovt.i32   %q[acc], #0\n\t"     \
  "2:\n\t"                          \
  "vstrw.32    %q[acc], [%[y], %q[yo], uxtw #2]\n\t"
  if (kAll)
    __asm__ volatile("" EDGEFOLD_NINE_TAPS(EDGEFOLD_TAP) EDGEFOLD_STORE
                     : [acc] "+&w"(acc), [tx] "=&w"(tx), [tw] "=&w"(tw)
                     : [x0] "r"(x0), [x1] "r"(x1), [x2] "r"(x2), [wv] "r"(wv), [mask] "r"(mask),
                       [relu] "l"(relu), [y] "r"(y), [q0] "w"(off0), [q1] "w"(off1), [q2] "w"(off2),
                       [yo] "w"(y_off)
                     : "cc", "memory");
  else
    __asm__ volatile("" EDGEFOLD_NINE_TAPS(EDGEFOLD_MASKED_TAP) EDGEFOLD_STORE
                     : [acc] "+&w"(acc), [tx] "=&w"(tx), [tw] "=&w"(tw)
                     : [x0] "r"(x0), [x1] "r"(x1), [x2] "r"(x2), [wv] "r"(wv), [mask] "r"(mask),
                       [relu] "l"(relu), [y] "r"(y), [q0] "w"(off0), [q1] "w"(off1), [q2] "w"(off2),
                       [yo] "w"(y_off)
                     : "cc", "memory");
#undef EDGEFOLD_STORE
}
#undef EDGEFOLD_NINE_TAPS
#undef EDGEFOLD_MASKED_TAP
#undef EDGEFOLD_TAP

}  // namespace

void Conv2dDepthwiseF32(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                        Activation act, float* y) {
  if (s.kh != 3 || s.kw != 3 || s.dilation_h != 1 || s.dilation_w != 1 || s.group != s.in_c ||
      s.in_c != s.out_c || s.out_c % 4 != 0 || s.out_w > kMaxOutW) {
    scalar::Conv2dDepthwiseClipped(s, x, w, bias, act, y);
    return;
  }
  const bool relu = act.kind == ActKind::kRelu;
  const size_t x_plane = s.in_h * s.in_w, y_plane = s.out_h * s.out_w;
  const long in_h = static_cast<long>(s.in_h), in_w = static_cast<long>(s.in_w);
  const uint32x4_t lane = vidupq_n_u32(0, 1);
  const uint32x4_t x_off = vmulq_n_u32(lane, static_cast<uint32_t>(x_plane));  // in floats
  const uint32x4_t y_off = vmulq_n_u32(lane, static_cast<uint32_t>(y_plane));
  const uint32x4_t w_off = vmulq_n_u32(lane, 9);
  const uint32x4_t x_off1 = vaddq_n_u32(x_off, 1), x_off2 = vaddq_n_u32(x_off, 2);
  // The taps inside the image by output column (bits t of each row: t·0x49) and row.
  uint16_t col_bits[kMaxOutW];
  for (size_t ow = 0; ow < s.out_w; ++ow) {
    size_t t0, t1;
    Taps3(static_cast<long>(ow * s.stride_w) - static_cast<long>(s.pad_left), in_w, &t0, &t1);
    col_bits[ow] = static_cast<uint16_t>((((1u << t1) - 1) & ~((1u << t0) - 1)) * 0x49u);
  }
  const uint32_t relu_flag = relu ? 1 : 0;
  for (size_t c0 = 0; c0 < s.out_c; c0 += 4) {
    float32x4_t wv[9];
    for (size_t k = 0; k < 9; ++k) wv[k] = vldrwq_gather_shifted_offset_f32(w + c0 * 9 + k, w_off);
    const float32x4_t b = bias != nullptr ? vld1q_f32(bias + c0) : vdupq_n_f32(0.0f);
    const float* xc = x + c0 * x_plane;
    float* yc = y + c0 * y_plane;
    for (size_t oh = 0; oh < s.out_h; ++oh) {
      const long ih0 = static_cast<long>(oh * s.stride_h) - static_cast<long>(s.pad_top);
      size_t r0, r1;
      Taps3(ih0, in_h, &r0, &r1);
      uint32_t row_bits = 0;
      for (size_t r = r0; r < r1; ++r) row_bits |= 7u << (3 * r);
      // Tap (0, 0) of output column 0; read only inside the image.
      const float* xo = xc + ih0 * in_w - static_cast<long>(s.pad_left);
      for (size_t ow = 0; ow < s.out_w; ++ow, ++yc, xo += s.stride_w) {
        const uint32_t mask = row_bits & col_bits[ow];
        if (mask == 0x1ff)
          Output4<true>(xo, xo + in_w, xo + 2 * in_w, wv, mask, relu_flag, b, x_off, x_off1, x_off2,
                        y_off, yc);
        else
          Output4<false>(xo, xo + in_w, xo + 2 * in_w, wv, mask, relu_flag, b, x_off, x_off1,
                         x_off2, y_off, yc);
      }
    }
  }
  if (act.kind != ActKind::kNone && !relu)
    for (size_t c = 0; c < s.out_c; ++c) {
      float* y_c = y + c * y_plane;
      ref::ActivationKernel(y_c, y_c, y_plane, act);
    }
}

}  // namespace edgefold::kernels::cortex_m_mve
#endif
