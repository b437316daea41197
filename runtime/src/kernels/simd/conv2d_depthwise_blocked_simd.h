// Depthwise convolution of small planes (outputs up to 16 × 16: the 14² and 7² stages of mobile
// networks, from inputs up to 32 × 32) W channels at a time, one channel per lane of a register:
// the NCHWc layout ONNX Runtime keeps between its ops, built here per op by W × W transposes.
// W = 16 in the AVX-512 table, 8 in the AVX2 table, 4 on NEON (AArch64, ARMv7); the transposes
// and partial loads and stores are per-ISA intrinsics, the rest is written once over the block's
// xsimd arch.
//
// Per output the taps are then whole-register FMAs with no masks, no lanes lost to row ends and
// no per-channel setup: a 7² 3×3 conv over 960 channels took 745 instructions per channel on the
// flat path (conv2d_depthwise_flat_simd.h: 7 registers of 8 columns, the column masks, the tap
// set-up of each channel), 14² → 7² at stride 2 1,400 (each 14-float row unzipped on its own).
//
// Per block: the channels' planes are transposed into a zero-bordered plane of registers
// (padded[(i + pad_top)·kDwBlockedPitch + j + pad_left] holds pixel (i, j) of the W channels;
// the border is zeroed once per call and never written; columns past the plane's width are
// never read), every output is bias + Σ_t (Σ_r w·x)
// in the order the flat path sums (each column's kh taps as a chain, the columns added to the
// bias left to right), and the outputs are transposed back into the channels' planes. Every
// channel takes this path whatever its block (a last block of fewer than W reads zeros for the
// missing channels), so a split of the channels over threads changes no output.
#pragma once
// Each table runs the blocks on its own batches (16 lanes with AVX-512, 8 with AVX2, 4 on NEON):
// a table that instantiated another level's batches would instantiate xsimd's own (weak,
// namespace xsimd) operators with its flags, and where they are not inlined (ASan and debug
// builds) the linker may hand that copy to the other table: SIGILL on a core without them.
#if (defined(__AVX2__) && defined(__FMA__)) || defined(__ARM_NEON)
#define EDGEFOLD_DW_BLOCKED 1
#if defined(__AVX2__)
#include <immintrin.h>
#else
#include <arm_neon.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/simd/conv2d_depthwise_unzip_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

#if defined(__AVX512F__)
using DwBlockArch = xsimd::avx512bw;  // the avx512 table's arch (kernels/arch/avx512.cc)
#elif defined(__AVX2__)
using DwBlockArch = xsimd::fma3<xsimd::avx2>;
#elif defined(__aarch64__)
using DwBlockArch = xsimd::neon64;
#else
using DwBlockArch = xsimd::neon;
#endif
using DwBlock = FBatch<DwBlockArch>;
constexpr size_t kDwBlockLanes = DwBlock::size;
constexpr size_t kDwBlockAlign = kDwBlockLanes * sizeof(float);  // load_aligned of one register

// Outputs up to 16 × 16 from inputs up to 32 × 32 (stride 2). Measured on AMD Zen 3 against
// the flat path: 7² and 14² outputs 1.3–3× faster (stride 1 and 2, 3×3 and 5×5); 28² and 32²
// outputs at stride 1 1.1–1.7× slower (their transposes cost what the flat path loses to masks).
// AVX-512 on AMD Zen 5, 16 channels a block, one-op medians flat → blocks: 7² 5×5 (1152 ch)
// 0.114 → 0.058 ms, 14² → 7² stride 2 (576) 0.067–0.081 → 0.036, 14² 5×5 (672) 0.17–0.19 →
// 0.12–0.13, 28² → 14² 5×5 stride 2 (240) 0.088–0.106 → 0.060.
constexpr size_t kDwBlockedMaxOutSide = 16;  // out_h, out_w
constexpr size_t kDwBlockedMaxIn = 32;       // in_h, in_w
// The zero-bordered plane's rows are kDwBlockedPitch registers apart whatever the shape, so the
// 3×3 and 5×5 loops (dilation 1) address every tap at a constant offset.
constexpr size_t kDwBlockedPitch = 40;
constexpr size_t kDwBlockedMaxPadded =
    40 * kDwBlockedPitch;  // registers of the zero-bordered plane
constexpr size_t kDwBlockedMaxOut = kDwBlockedMaxOutSide * kDwBlockedMaxOutSide;
constexpr size_t kDwBlockedMaxTaps = 7 * 7;

// Rows r[0..W) (W floats each) → columns: afterwards r[j] holds element j of every row.
inline void DwTransposeBlock(DwBlock (&v)[kDwBlockLanes]) {
#if defined(__AVX512F__)
  // 4 × 4 transposes inside each 128-bit lane: r[4g + j] lane L holds column 4L + j of rows
  // 4g..4g+3; then two rounds of 128-bit lane shuffles gather column c's four quarters.
  __m512 r[16], t[16];
  for (size_t i = 0; i < 16; ++i) r[i] = v[i];
  for (size_t i = 0; i < 16; i += 2)
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]), t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  for (size_t g = 0; g < 16; g += 4) {
    r[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44),
    r[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
    r[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44),
          r[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
  }
  for (size_t j = 0; j < 4; ++j) {
    t[j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88),
    t[4 + j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xDD);
    t[8 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88);
    t[12 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xDD);
  }
  for (size_t j = 0; j < 4; ++j) {
    v[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88),
    v[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xDD);
    v[4 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0x88);
    v[12 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0xDD);
  }
#elif defined(__AVX2__)
  __m256 r[8];
  for (size_t i = 0; i < 8; ++i) r[i] = v[i];
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  v[0] = _mm256_permute2f128_ps(s0, s4, 0x20), v[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  v[2] = _mm256_permute2f128_ps(s2, s6, 0x20), v[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  v[4] = _mm256_permute2f128_ps(s0, s4, 0x31), v[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  v[6] = _mm256_permute2f128_ps(s2, s6, 0x31), v[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
#else
  const float32x4x2_t p01 = vtrnq_f32(v[0], v[1]), p23 = vtrnq_f32(v[2], v[3]);
  v[0] = vcombine_f32(vget_low_f32(p01.val[0]), vget_low_f32(p23.val[0]));
  v[1] = vcombine_f32(vget_low_f32(p01.val[1]), vget_low_f32(p23.val[1]));
  v[2] = vcombine_f32(vget_high_f32(p01.val[0]), vget_high_f32(p23.val[0]));
  v[3] = vcombine_f32(vget_high_f32(p01.val[1]), vget_high_f32(p23.val[1]));
#endif
}

// The first `count` < W floats at src, zeros after them; only those floats are read.
inline DwBlock DwBlockLoadFirst(const float* src, size_t count) {
#if defined(__AVX512F__)
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1), src);
#elif defined(__AVX2__)
  return _mm256_maskload_ps(src, DwAvx2LowMask(count));
#else
  alignas(16) float part[4] = {};
  for (size_t i = 0; i < count; ++i) part[i] = src[i];
  return DwBlock::load_aligned(part);
#endif
}

// The first `count` ≤ W floats of v to dst, nothing after them.
inline void DwBlockStoreFirst(float* dst, DwBlock v, size_t count) {
#if defined(__AVX512F__)
  _mm512_mask_storeu_ps(dst, static_cast<__mmask16>((1u << count) - 1), v);
#elif defined(__AVX2__)
  DwStoreFirst(dst, v, count);
#else
  if (count == 4) return v.store_unaligned(dst);
  alignas(16) float part[4];
  v.store_aligned(part);
  for (size_t i = 0; i < count; ++i) dst[i] = part[i];
#endif
}

// What one block's outputs need besides the plane: the taps' weights (wv[tap·W + lane]), the
// bias, and the clamp of None/Relu/Clip (ActBatchMany runs the others over the block).
struct DwBlockedTaps {
  const float* wv;
  DwBlock bias, lo, hi;
  bool clamp;
};

// Outputs whose windows start at px[0..N) (N outputs at once: each weight load serves N FMAs),
// stored at out[j]. KH/KW fixed (3, 5: undilated, taps at constant offsets) or 0 (kh, kw
// and the taps' strides at run time).
template <size_t KH, size_t KW, size_t N>
inline void DwBlockedGroup(const float* const (&px)[N], const DwBlockedTaps& k, size_t kh,
                           size_t kw, size_t tap_row, size_t tap_col, DwBlock* out) {
  using B = DwBlock;
  constexpr size_t W = kDwBlockLanes;
  if constexpr (KH != 0) kh = KH, tap_row = kDwBlockedPitch * W;
  if constexpr (KW != 0) kw = KW, tap_col = W;
  B acc[N];
  for (size_t j = 0; j < N; ++j) acc[j] = k.bias;
#pragma GCC unroll 8
  for (size_t t = 0; t < kw; ++t) {
    B sum[N];
    const B w0 = B::load_aligned(k.wv + t * W);
    for (size_t j = 0; j < N; ++j) sum[j] = w0 * B::load_aligned(px[j] + t * tap_col);
#pragma GCC unroll 8
    for (size_t r = 1; r < kh; ++r) {
      const B wr = B::load_aligned(k.wv + (r * kw + t) * W);
      for (size_t j = 0; j < N; ++j)
        sum[j] = xsimd::fma(wr, B::load_aligned(px[j] + r * tap_row + t * tap_col), sum[j]);
    }
    for (size_t j = 0; j < N; ++j) acc[j] += sum[j];
  }
  for (size_t j = 0; j < N; ++j) {
    // x second: a NaN stays NaN, as in ActBatch.
    if (k.clamp) acc[j] = xsimd::min(k.hi, xsimd::max(k.lo, acc[j]));
    out[j] = acc[j];
  }
}

// out[p] = the W channels' output p, four outputs at a time in flat order (across row
// ends); window[p] is where output p's window starts in padded (floats).
template <size_t KH, size_t KW>
void DwBlockedOutputs(const Conv2dShape& s, const float* padded, const uint32_t* window,
                      const DwBlockedTaps& k, DwBlock* out) {
  constexpr size_t N = 4;
  constexpr size_t W = kDwBlockLanes;
  const size_t tap_row = s.dilation_h * kDwBlockedPitch * W, tap_col = s.dilation_w * W,
               n = s.out_h * s.out_w;
  size_t p = 0;
  for (; p + N <= n; p += N) {
    const float* px[N] = {padded + window[p], padded + window[p + 1], padded + window[p + 2],
                          padded + window[p + 3]};
    DwBlockedGroup<KH, KW, N>(px, k, s.kh, s.kw, tap_row, tap_col, out + p);
  }
  for (; p < n; ++p) {
    const float* px[1] = {padded + window[p]};
    DwBlockedGroup<KH, KW, 1>(px, k, s.kh, s.kw, tap_row, tap_col, out + p);
  }
}

// All channels of one image; false (nothing written) when the shape is not for this path.
template <class Arch>
bool DwBlockedImage(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                    const Activation& act, float* y) {
  using B = DwBlock;
  constexpr size_t W = kDwBlockLanes;
  if (s.in_h > kDwBlockedMaxIn || s.in_w > kDwBlockedMaxIn || s.stride_h > 2 || s.stride_w > 2)
    return false;
  if (s.out_h > kDwBlockedMaxOutSide || s.out_w > kDwBlockedMaxOutSide) return false;
  if (s.kh * s.kw > kDwBlockedMaxTaps || s.out_h == 0 || s.out_w == 0 || s.in_h == 0 || s.in_w == 0)
    return false;
#if defined(__aarch64__)
  // Undilated 3×3 keeps AArch64's flat kernel (conv2d_depthwise_flat_neon64.h) except at stride
  // 2 into 8 × 8 or less. Instructions under QEMU, flat → blocks: 3×3 7² over 960 channels
  // 725 K → 921 K, 28² → 14² over 192 781 K → 952 K, 14² → 7² over 576 973 K → 777 K; 5×5 7²
  // over 1152 2.52 M → 1.76 M, 14² over 672 4.54 M → 3.51 M.
  if (s.kh == 3 && s.kw == 3 && s.dilation_h == 1 && s.dilation_w == 1 &&
      (s.stride_h == 1 || s.stride_w == 1 || s.out_h * s.out_w > 64))
    return false;
#elif defined(__AVX512F__)
  // Undilated 3×3 at stride 1 into rows wider than 8 keeps the flat path, whose 16-lane rows
  // hold a 14-wide row in one register: 14² over 384 channels (AMD Zen 5) flat 0.038–0.043 ms,
  // blocks 0.043–0.051 (the transposes); at 7² the blocks win, 0.043–0.049 → 0.035–0.040.
  if (s.kh == 3 && s.kw == 3 && s.dilation_h == 1 && s.dilation_w == 1 && s.stride_h == 1 &&
      s.stride_w == 1 && s.out_w > 8)
    return false;
#endif
  // The plane with its zero border: every tap of every output lands inside it.
  const size_t ph =
      std::max((s.out_h - 1) * s.stride_h + (s.kh - 1) * s.dilation_h + 1, s.pad_top + s.in_h);
  const size_t pw =
      std::max((s.out_w - 1) * s.stride_w + (s.kw - 1) * s.dilation_w + 1, s.pad_left + s.in_w);
  const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w, taps = s.kh * s.kw;
  if (pw > kDwBlockedPitch || ph * kDwBlockedPitch > kDwBlockedMaxPadded ||
      out_plane > kDwBlockedMaxOut)
    return false;

  alignas(kDwBlockAlign) float padded[kDwBlockedMaxPadded * W];
  B out[kDwBlockedMaxOut];
  alignas(kDwBlockAlign) float wv[kDwBlockedMaxTaps * W];
  // Only the border is zeroed: every block writes all of the interior, and the columns past pw
  // are never read (a whole ph × pitch plane was 64–100 KiB of stores a call, more than L1d).
  for (size_t i = 0; i < ph; ++i) {
    float* row = padded + i * kDwBlockedPitch * W;
    if (i < s.pad_top || i >= s.pad_top + s.in_h) {
      std::memset(row, 0, pw * W * sizeof(float));
      continue;
    }
    std::memset(row, 0, s.pad_left * W * sizeof(float));
    std::memset(row + (s.pad_left + s.in_w) * W, 0, (pw - s.pad_left - s.in_w) * W * sizeof(float));
  }
  uint16_t at[kDwBlockedMaxIn * kDwBlockedMaxIn];  // register of input pixel p in padded
  for (size_t i = 0, p = 0; i < s.in_h; ++i)
    for (size_t j = 0; j < s.in_w; ++j, ++p)
      at[p] = static_cast<uint16_t>((i + s.pad_top) * kDwBlockedPitch + j + s.pad_left);
  uint32_t window[kDwBlockedMaxOut];  // first float of output p's window in padded
  for (size_t oh = 0, p = 0; oh < s.out_h; ++oh)
    for (size_t ow = 0; ow < s.out_w; ++ow, ++p)
      window[p] = static_cast<uint32_t>((oh * s.stride_h * kDwBlockedPitch + ow * s.stride_w) * W);

  const bool clamp =
      act.kind == ActKind::kNone || act.kind == ActKind::kRelu || act.kind == ActKind::kClip;
  DwBlockedTaps k;
  k.wv = wv, k.clamp = act.kind == ActKind::kRelu || act.kind == ActKind::kClip;
  k.lo = B(act.kind == ActKind::kClip ? act.alpha : 0.0f);
  k.hi = B(act.kind == ActKind::kClip ? act.beta : std::numeric_limits<float>::infinity());
  void (*outputs)(const Conv2dShape&, const float*, const uint32_t*, const DwBlockedTaps&,
                  DwBlock*) = &DwBlockedOutputs<0, 0>;
  const bool undilated = s.dilation_h == 1 && s.dilation_w == 1;
  if (undilated && s.kh == 3 && s.kw == 3) outputs = &DwBlockedOutputs<3, 3>;
  if (undilated && s.kh == 5 && s.kw == 5) outputs = &DwBlockedOutputs<5, 5>;
  const size_t x_plane = ConvXPlane(s), y_plane = ConvYPlane(s);

  for (size_t c0 = 0; c0 < s.out_c; c0 += W) {
    const size_t nc = std::min(W, s.out_c - c0);
    const float* rows[W];
    for (size_t ch = 0; ch < nc; ++ch) rows[ch] = x + (c0 + ch) * x_plane;
    for (size_t p = 0; p < in_plane; p += W) {  // W pixels of the W channels → W registers
      const size_t left = std::min(W, in_plane - p);
      B r[W];
      for (size_t ch = 0; ch < W; ++ch)  // a last block's missing channels are zeros
        r[ch] = ch >= nc    ? B(0.0f)
                : left == W ? B::load_unaligned(rows[ch] + p)
                            : DwBlockLoadFirst(rows[ch] + p, left);
      DwTransposeBlock(r);
      for (size_t q = 0; q < left; ++q) r[q].store_aligned(padded + at[p + q] * W);
    }
    if (nc < W) std::memset(wv, 0, taps * W * sizeof(float));
    for (size_t ch = 0; ch < nc; ++ch)
      for (size_t tap = 0; tap < taps; ++tap) wv[tap * W + ch] = w[(c0 + ch) * taps + tap];
    alignas(kDwBlockAlign) float b[W];
    for (size_t ch = 0; ch < W; ++ch) b[ch] = ch < nc && bias != nullptr ? bias[c0 + ch] : 0.0f;
    k.bias = B::load_aligned(b);
    outputs(s, padded, window, k, out);
    if (!clamp) ActBatchMany<DwBlockArch>(out, out_plane, act);  // SiLU, Sigmoid, HardSwish, …
    for (size_t p = 0; p < out_plane; p += W) {  // W outputs of the W channels → their planes
      const size_t left = std::min(W, out_plane - p);
      B r[W];
      for (size_t q = 0; q < W; ++q) r[q] = q < left ? out[p + q] : B(0.0f);
      DwTransposeBlock(r);
      for (size_t ch = 0; ch < nc; ++ch)
        DwBlockStoreFirst(y + (c0 + ch) * y_plane + p, r[ch], left);
    }
  }
  return true;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
#endif
