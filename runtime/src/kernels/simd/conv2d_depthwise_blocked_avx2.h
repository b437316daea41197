// Depthwise convolution of small planes (outputs up to 16 × 16: the 14² and 7² stages of mobile
// networks, from inputs up to 32 × 32) eight channels at a time, one channel per lane of a
// 256-bit register: the NCHW8c layout ONNX Runtime keeps between its ops, built here per op by
// 8 × 8 transposes.
//
// Per output the taps are then whole-register FMAs with no masks, no lanes lost to row ends and
// no per-channel setup: a 7² 3×3 conv over 960 channels took 745 instructions per channel on the
// flat path (conv2d_depthwise_flat_simd.h: 7 registers of 8 columns, the column masks, the tap
// set-up of each channel), 14² → 7² at stride 2 1,400 (each 14-float row unzipped on its own).
//
// Per block: the channels' planes are transposed into a zero-bordered plane of registers
// (padded[(i + pad_top)·kDwBlockedPitch + j + pad_left] holds pixel (i, j) of the 8 channels;
// the border is zeroed once per call and never written), every output is bias + Σ_t (Σ_r w·x) in the order the
// flat path sums (each column's kh taps as a chain, the columns added to the bias left to
// right), and the outputs are transposed back into the channels' planes. Every channel takes
// this path whatever its block (a last block of fewer than 8 reads zeros for the missing
// channels), so a split of the channels over threads changes no output.
//
// x86 with AVX2 and FMA (the AVX2 and AVX-512 tables): the transposes are per-ISA intrinsics,
// and 8 lanes suit these planes on AVX-512 too.
#pragma once
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/simd/conv2d_depthwise_unzip_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// Outputs up to 16 × 16 from inputs up to 32 × 32 (stride 2). Measured on AMD Zen 3 against
// the flat path: 7² and 14² outputs 1.3–3× faster (stride 1 and 2, 3×3 and 5×5); 28² and 32²
// outputs at stride 1 1.1–1.7× slower (their transposes cost what the flat path loses to masks).
constexpr size_t kDwBlockedMaxOutSide = 16;      // out_h, out_w
constexpr size_t kDwBlockedMaxIn = 32;           // in_h, in_w
// The zero-bordered plane's rows are kDwBlockedPitch registers apart whatever the shape, so the
// 3×3 and 5×5 loops (dilation 1) address every tap at a constant offset.
constexpr size_t kDwBlockedPitch = 40;
constexpr size_t kDwBlockedMaxPadded = 40 * kDwBlockedPitch;  // registers of the zero-bordered plane
constexpr size_t kDwBlockedMaxOut = kDwBlockedMaxOutSide * kDwBlockedMaxOutSide;
constexpr size_t kDwBlockedMaxTaps = 7 * 7;

// Rows r[0..7] (8 floats each) → columns: afterwards r[j] holds element j of every row.
inline void DwTranspose8(__m256 (&r)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20), r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20), r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31), r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31), r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// What one block's outputs need besides the plane: the taps' weights (wv[tap·8 + lane]), the
// bias, and the clamp of None/Relu/Clip (DwBlockedActivation runs the others over the block).
struct DwBlockedTaps {
  const float* wv;
  __m256 bias, lo, hi;
  bool clamp;
};

// Outputs whose windows start at px[0..N) (N outputs at once: each weight load serves N FMAs),
// stored at out[j·8 ..]. KH/KW fixed (3, 5: undilated, taps at constant offsets) or 0 (kh, kw
// and the taps' strides at run time).
template <size_t KH, size_t KW, size_t N>
inline void DwBlockedGroup(const float* const (&px)[N], const DwBlockedTaps& k, size_t kh, size_t kw,
                           size_t tap_row, size_t tap_col, float* out) {
  if constexpr (KH != 0) kh = KH, tap_row = kDwBlockedPitch * 8;
  if constexpr (KW != 0) kw = KW, tap_col = 8;
  __m256 acc[N];
  for (size_t j = 0; j < N; ++j) acc[j] = k.bias;
#pragma GCC unroll 8
  for (size_t t = 0; t < kw; ++t) {
    __m256 sum[N];
    const __m256 w0 = _mm256_load_ps(k.wv + t * 8);
    for (size_t j = 0; j < N; ++j) sum[j] = _mm256_mul_ps(w0, _mm256_load_ps(px[j] + t * tap_col));
#pragma GCC unroll 8
    for (size_t r = 1; r < kh; ++r) {
      const __m256 wr = _mm256_load_ps(k.wv + (r * kw + t) * 8);
      for (size_t j = 0; j < N; ++j)
        sum[j] = _mm256_fmadd_ps(wr, _mm256_load_ps(px[j] + r * tap_row + t * tap_col), sum[j]);
    }
    for (size_t j = 0; j < N; ++j) acc[j] = _mm256_add_ps(acc[j], sum[j]);
  }
  for (size_t j = 0; j < N; ++j) {
    // x second: a NaN stays NaN, as in ActBatch.
    if (k.clamp) acc[j] = _mm256_min_ps(k.hi, _mm256_max_ps(k.lo, acc[j]));
    _mm256_store_ps(out + j * 8, acc[j]);
  }
}

// out[p·8 ..] = the 8 channels' output p, four outputs at a time in flat order (across row
// ends); window[p] is where output p's window starts in padded (floats).
template <size_t KH, size_t KW>
void DwBlockedOutputs(const Conv2dShape& s, const float* padded, const uint32_t* window, const DwBlockedTaps& k,
                      float* out) {
  constexpr size_t N = 4;
  const size_t tap_row = s.dilation_h * kDwBlockedPitch * 8, tap_col = s.dilation_w * 8, n = s.out_h * s.out_w;
  size_t p = 0;
  for (; p + N <= n; p += N) {
    const float* px[N] = {padded + window[p], padded + window[p + 1], padded + window[p + 2], padded + window[p + 3]};
    DwBlockedGroup<KH, KW, N>(px, k, s.kh, s.kw, tap_row, tap_col, out + p * 8);
  }
  for (; p < n; ++p) {
    const float* px[1] = {padded + window[p]};
    DwBlockedGroup<KH, KW, 1>(px, k, s.kh, s.kw, tap_row, tap_col, out + p * 8);
  }
}

// act on the block's outputs (n registers of 8 channels) before they are transposed back, for
// the activations the block does not clamp: SiLU, Sigmoid and HardSwish (EfficientNet's,
// MobileNetV3's) with their constants hoisted out of the loop, the others through ActBatch.
template <class BA>
void DwBlockedActivation(float* out, size_t n, const Activation& act) {
  using B = FBatch<BA>;
  const auto each = [&](auto f) {
    for (size_t p = 0; p < n; ++p) f(B::load_aligned(out + p * 8)).store_aligned(out + p * 8);
  };
  switch (act.kind) {
    case ActKind::kSiLU: return each([](B x) { return SiluBatch<BA>(x); });
    case ActKind::kSigmoid: return each([](B x) { return SigmoidBatch<BA>(x); });
    case ActKind::kHardSwish: return each([](B x) { return HardSwishBatch<BA>(x); });
    default: return each([&](B x) { return ActBatch<BA>(x, act); });
  }
}

// All channels of one image; false (nothing written) when the shape is not for this path.
template <class Arch>
bool DwBlockedImage(const Conv2dShape& s, const float* x, const float* w, const float* bias, const Activation& act,
                    float* y) {
  if (s.in_h > kDwBlockedMaxIn || s.in_w > kDwBlockedMaxIn || s.stride_h > 2 || s.stride_w > 2) return false;
  if (s.out_h > kDwBlockedMaxOutSide || s.out_w > kDwBlockedMaxOutSide) return false;
  if (s.kh * s.kw > kDwBlockedMaxTaps || s.out_h == 0 || s.out_w == 0 || s.in_h == 0 || s.in_w == 0) return false;
  // The plane with its zero border: every tap of every output lands inside it.
  const size_t ph = std::max((s.out_h - 1) * s.stride_h + (s.kh - 1) * s.dilation_h + 1, s.pad_top + s.in_h);
  const size_t pw = std::max((s.out_w - 1) * s.stride_w + (s.kw - 1) * s.dilation_w + 1, s.pad_left + s.in_w);
  const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w, taps = s.kh * s.kw;
  if (pw > kDwBlockedPitch || ph * kDwBlockedPitch > kDwBlockedMaxPadded || out_plane > kDwBlockedMaxOut) return false;

  alignas(32) float padded[kDwBlockedMaxPadded * 8];
  alignas(32) float out[kDwBlockedMaxOut * 8];
  alignas(32) float wv[kDwBlockedMaxTaps * 8];
  alignas(32) float zeros[kDwBlockedMaxIn * kDwBlockedMaxIn] = {};
  std::memset(padded, 0, ph * kDwBlockedPitch * 8 * sizeof(float));
  uint16_t at[kDwBlockedMaxIn * kDwBlockedMaxIn];   // register of input pixel p in padded
  for (size_t i = 0, p = 0; i < s.in_h; ++i)
    for (size_t j = 0; j < s.in_w; ++j, ++p)
      at[p] = static_cast<uint16_t>((i + s.pad_top) * kDwBlockedPitch + j + s.pad_left);
  uint32_t window[kDwBlockedMaxOut];   // first float of output p's window in padded
  for (size_t oh = 0, p = 0; oh < s.out_h; ++oh)
    for (size_t ow = 0; ow < s.out_w; ++ow, ++p)
      window[p] = static_cast<uint32_t>((oh * s.stride_h * kDwBlockedPitch + ow * s.stride_w) * 8);

  const bool clamp = act.kind == ActKind::kNone || act.kind == ActKind::kRelu || act.kind == ActKind::kClip;
  const float inf = std::numeric_limits<float>::infinity();
  DwBlockedTaps k;
  k.wv = wv, k.clamp = act.kind == ActKind::kRelu || act.kind == ActKind::kClip;
  k.lo = _mm256_set1_ps(act.kind == ActKind::kClip ? act.alpha : 0.0f);
  k.hi = _mm256_set1_ps(act.kind == ActKind::kClip ? act.beta : inf);
  void (*outputs)(const Conv2dShape&, const float*, const uint32_t*, const DwBlockedTaps&, float*) =
      &DwBlockedOutputs<0, 0>;
  const bool undilated = s.dilation_h == 1 && s.dilation_w == 1;
  if (undilated && s.kh == 3 && s.kw == 3) outputs = &DwBlockedOutputs<3, 3>;
  if (undilated && s.kh == 5 && s.kw == 5) outputs = &DwBlockedOutputs<5, 5>;
  const size_t x_plane = ConvXPlane(s), y_plane = ConvYPlane(s);

  for (size_t c0 = 0; c0 < s.out_c; c0 += 8) {
    const size_t nc = std::min<size_t>(8, s.out_c - c0);
    const float* rows[8];
    for (size_t ch = 0; ch < 8; ++ch) rows[ch] = ch < nc ? x + (c0 + ch) * x_plane : zeros;
    for (size_t p = 0; p < in_plane; p += 8) {   // 8 pixels of the 8 channels → 8 registers
      const size_t left = std::min<size_t>(8, in_plane - p);
      __m256 r[8];
      if (left == 8) {
        for (size_t ch = 0; ch < 8; ++ch) r[ch] = _mm256_loadu_ps(rows[ch] + p);
      } else {
        const __m256i mask = DwAvx2LowMask(left);
        for (size_t ch = 0; ch < 8; ++ch) r[ch] = _mm256_maskload_ps(rows[ch] + p, mask);
      }
      DwTranspose8(r);
      for (size_t q = 0; q < left; ++q) _mm256_store_ps(padded + at[p + q] * 8, r[q]);
    }
    if (nc < 8) std::memset(wv, 0, taps * 8 * sizeof(float));
    for (size_t ch = 0; ch < nc; ++ch)
      for (size_t tap = 0; tap < taps; ++tap) wv[tap * 8 + ch] = w[(c0 + ch) * taps + tap];
    alignas(32) float b[8];
    for (size_t ch = 0; ch < 8; ++ch) b[ch] = ch < nc && bias != nullptr ? bias[c0 + ch] : 0.0f;
    k.bias = _mm256_load_ps(b);
    outputs(s, padded, window, k, out);
    if (!clamp) DwBlockedActivation<xsimd::fma3<xsimd::avx2>>(out, out_plane, act);
    for (size_t p = 0; p < out_plane; p += 8) {   // 8 outputs of the 8 channels → their planes
      const size_t left = std::min<size_t>(8, out_plane - p);
      __m256 r[8];
      for (size_t q = 0; q < 8; ++q) r[q] = q < left ? _mm256_load_ps(out + (p + q) * 8) : _mm256_setzero_ps();
      DwTranspose8(r);
      for (size_t ch = 0; ch < nc; ++ch) DwStoreFirst(y + (c0 + ch) * y_plane + p, r[ch], left);
    }
  }
  return true;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
#endif
