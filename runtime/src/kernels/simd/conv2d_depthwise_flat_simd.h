// Depthwise convolution of one image for strides 1 and 2, computed straight into y with the
// output plane taken as one flat vector of n = out_h·out_w floats (several short rows share a
// register: no lanes are lost to row ends and no copy-out pass is needed).
//
// The input is split by stride phase: plane (a, b) holds Q[i'][j'] = x[i'·sh + a][j'·sw + b]
// with row pitch out_w (rows_a × cols_b values; needs cols_b ≤ out_w), zero rows above and
// below. Tap (r, t) of output (oh, ow) reads input row oh·sh + v, v = r·dh − pt, column
// ow·sw + u, u = t·dw − pl, i.e. plane (v mod sh, u mod sw) at [oh + ⌊v/sh⌋][ow + ⌊u/sw⌋]:
// at flat index p = oh·out_w + ow that is the constant offset ⌊v/sh⌋·out_w + ⌊u/sw⌋. Rows
// outside the image land in the zero rows; a column outside [0, cols_b) wraps into the
// neighbouring row, so the kh taps of column t are summed apart and that sum is kept only on
// the lanes whose ow + ⌊u/sw⌋ is inside [0, cols_b) (one select per column, not per tap).
// Stride 1 with out_w == in_w makes the plane a plain copy of the channel (one memcpy).
// At stride 1 with undilated columns a row's kw taps are kw consecutive floats: on AVX-512 and
// AVX2 (3×3, 5×5) each row is loaded once per register and its taps are lane shifts of that
// register and the next (DwSlide), instead of kw unaligned loads.
#pragma once
#include <cstring>
#include <type_traits>

#include "kernels/simd/conv2d_depthwise_act_simd.h"
#include "kernels/simd/conv2d_depthwise_unzip_simd.h"
#include "kernels/simd/elementwise_simd.h"
#include "kernels/simd/conv2d_depthwise_flat_plan_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// a·b + c as one fused instruction: xsimd 8.1 has no AVX-512 fma (its generic a·b + c is left
// unfused by GCC when the sum then feeds a masked select).
template <class Arch>
inline FBatch<Arch> DwFma(FBatch<Arch> a, FBatch<Arch> b, FBatch<Arch> c) {
#if defined(__AVX512F__)
  if constexpr (FBatch<Arch>::size == 16) return _mm512_fmadd_ps(a, b, c);
#endif
  return xsimd::fma(a, b, c);
}

// Whether a row of kw taps is read once and shifted (DwSlide) rather than loaded kw times: with
// AVX-512 one valignd per shift, with AVX2 a cross-half permute per register and a vpalignr per
// shift. On AMD Zen 5, one-op depthwise convs, min of medians (bench/README.md): AVX-512 3×3 at
// 56², 28², 14²: −23, −21, −6 %; the AVX2 table 3×3 −4, −6, 0 %, 5×5 at 56² −30 %.
template <class Arch>
constexpr bool DwSlidePays(size_t kw) {
#if defined(__AVX2__)  // AVX-512 builds define it too: 16 lanes there, 8 with AVX2
  return FBatch<Arch>::size >= 8 && kw >= 2 && kw <= 5;
#else
  (void)kw;
  return false;
#endif
}

// Lanes [t, t + W) of the 2·W floats lo, hi (t ≤ 4: the fixed 3×3 and 5×5 loops; a constant
// once the caller's loop over t is unrolled). Only for the archs DwSlidePays names.
template <class Arch>
inline __attribute__((always_inline)) FBatch<Arch> DwSlide(FBatch<Arch> lo, FBatch<Arch> hi,
                                                           size_t t) {
#if defined(__AVX512F__)
  if constexpr (FBatch<Arch>::size == 16) {
    const __m512i l = _mm512_castps_si512(lo), h = _mm512_castps_si512(hi);
    switch (t) {
      case 0:
        return lo;
      case 1:
        return _mm512_castsi512_ps(_mm512_alignr_epi32(h, l, 1));
      case 2:
        return _mm512_castsi512_ps(_mm512_alignr_epi32(h, l, 2));
      case 3:
        return _mm512_castsi512_ps(_mm512_alignr_epi32(h, l, 3));
      default:
        return _mm512_castsi512_ps(_mm512_alignr_epi32(h, l, 4));
    }
  }
#endif
#if defined(__AVX2__)
  if constexpr (FBatch<Arch>::size == 8) {  // per 128-bit half: alignr of (lo, mid) and (mid, hi)
    const __m256i l = _mm256_castps_si256(lo);
    const __m256i mid = _mm256_castps_si256(_mm256_permute2f128_ps(lo, hi, 0x21));
    switch (t) {
      case 0:
        return lo;
      case 1:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(mid, l, 4));
      case 2:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(mid, l, 8));
      case 3:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(mid, l, 12));
      default:
        return _mm256_castsi256_ps(mid);
    }
  }
#endif
  (void)hi, (void)t;
  return lo;
}

// One channel's taps held in locals (weights, offsets and column bounds copied out of w and
// the plan) so the per-register loop reloads nothing: stores to y may alias w and the plan.
// KH/KW are the kernel size when fixed at compile time (loops fully unrolled), 0 to take it
// from the plan.
template <class Arch, size_t KH, size_t KW>
struct DwFlatTaps {
  using B = FBatch<Arch>;
  static constexpr size_t MH = KH != 0 ? KH : kDwFlatMaxK, MW = KW != 0 ? KW : kDwFlatMaxK;
  size_t kh, kw;
  float wv[MH * MW], lo[MW], hi[MW], bias;
  long row_off[MH], col_off[MW];
  bool masked[MW];
  const float* mask[MW];  // DwColumnMasks rows when tables are in use, else nullptr
  bool tables;

  DwFlatTaps(const DwFlatPlan& g, const DwColumnMasks& m, const float* w_c, float b)
      : kh(KH != 0 ? KH : g.kh), kw(KW != 0 ? KW : g.kw), bias(b), tables(m.tables) {
    for (size_t r = 0; r < kh; ++r) row_off[r] = g.row_off[r];
    for (size_t t = 0; t < kw; ++t) {
      col_off[t] = g.col_off[t];
      lo[t] = g.col_lo[t], hi[t] = g.col_hi[t], masked[t] = g.col_masked[t];
      // An unmasked column reads a row of all ones (the sliding run ands every column).
      mask[t] = !m.tables   ? nullptr
                : masked[t] ? m.bits[t]
                            : reinterpret_cast<const float*>(kDwAllLanes.bits);
      for (size_t r = 0; r < kh; ++r) wv[r * kw + t] = w_c[r * kw + t];
    }
  }

  // Column t's kh taps at flat index p: their own chain.
  B Column(const float* base, long p, size_t t) const {
    const long c = p + col_off[t];
    B sum = B(wv[t]) * B::load_unaligned(base + (c + row_off[0]));
#pragma GCC unroll 8
    for (size_t r = 1; r < kh; ++r)
      sum = DwFma<Arch>(B(wv[r * kw + t]), B::load_unaligned(base + (c + row_off[r])), sum);
    return sum;
  }

  // At with the column masks read from the tables: the register's first output is in column
  // `col` of its row. The same sums, kept on the same lanes (+0 elsewhere, as the select).
  // Always inlined: out of line (GCC's choice once the sliding run grew DwFlatRun) the last
  // registers of every channel paid a call.
  inline __attribute__((always_inline)) B AtRow(const float* base, long p, size_t col) const {
    B acc(bias);
#pragma GCC unroll 8
    for (size_t t = 0; t < kw; ++t) {
      const B sum = Column(base, p, t);
      acc += masked[t] ? (sum & B::load_unaligned(mask[t] + col)) : sum;
    }
    return acc;
  }

  // AtRow with each row's window as lanes of (lo[r], hi[r]) = the 2·W floats from the row's
  // first tap (a row's taps are consecutive floats: stride 1, undilated columns): the same
  // products summed in the same order (the same bits), one load per row instead of kw, nearly
  // all of which were unaligned loads across two cache lines. Every column is anded with its
  // mask row (all ones where no lane is dropped): no branch per column.
  inline __attribute__((always_inline)) B AtSlide(const B* lo, const B* hi, size_t col) const {
    B acc(bias);
#pragma GCC unroll 8
    for (size_t t = 0; t < MW; ++t) {
      B sum = B(wv[t]) * DwSlide<Arch>(lo[0], hi[0], t);
#pragma GCC unroll 8
      for (size_t r = 1; r < MH; ++r)
        sum = DwFma<Arch>(B(wv[r * MW + t]), DwSlide<Arch>(lo[r], hi[r], t), sum);
      acc += sum & B::load_unaligned(mask[t] + col);
    }
    return acc;
  }

  // bias + Σ taps for the register whose flat index is p in the planes at base and whose
  // lanes sit in columns ow. Each column's kh taps form their own chain (kw independent
  // chains), kept on the lanes lo[t] ≤ ow < hi[t].
  B At(const float* base, long p, B ow) const {
    B sum[MW];
#pragma GCC unroll 8
    for (size_t t = 0; t < kw; ++t) sum[t] = Column(base, p, t);
    B acc(bias);
#pragma GCC unroll 8
    for (size_t t = 0; t < kw; ++t)
      acc +=
          masked[t] ? xsimd::select((ow >= B(lo[t])) & (ow < B(hi[t])), sum[t], B(0.0f)) : sum[t];
    return acc;
  }
};

// Registers [p, end) of one channel, reading flat index p − shift of the planes at src; ow
// holds the columns of register p and is advanced past end.
// With mask tables the register's column is the scalar col instead (ow is then left as is).
// Always inlined: out of line, its taps and state went through memory (MobileNetV2's depthwise
// convs +7 M instructions when an unrelated change in the same file moved GCC's inlining budget).
template <class Arch, size_t KH, size_t KW, bool Slide, class Act>
inline __attribute__((always_inline)) void DwFlatRun(const DwFlatTaps<Arch, KH, KW>& taps,
                                                     const DwFlatPlan& g, const float* src,
                                                     size_t shift, const Act& act, size_t p,
                                                     size_t end, FBatch<Arch>& ow, size_t& col,
                                                     float* y_c) {
  using B = FBatch<Arch>;
  if (taps.tables) {
    const size_t pitch = g.pitch, step = g.step;
    if constexpr (Slide) {
      static_assert(KH != 0 && KW != 0 && DwSlidePays<Arch>(KW),
                    "sliding runs need a fixed window");
      if (p + B::size < end) {
        // Row r's window for register p: W + kw − 1 floats from src + p − shift + row_off[r] +
        // col_off[0], held as lo[r] (this register's W) and hi[r] (the next W, which is the next
        // register's lo). The last register of the run loads as below: its hi would read up to
        // W floats past the run's data.
        const float* first = src + taps.col_off[0] - static_cast<long>(shift);
        const float* row[KH];
        B lo[KH], hi[KH];
#pragma GCC unroll 8
        for (size_t r = 0; r < KH; ++r) {
          row[r] = first + taps.row_off[r];
          lo[r] = B::load_unaligned(row[r] + p);
        }
        for (; p + B::size < end; p += B::size) {
#pragma GCC unroll 8
          for (size_t r = 0; r < KH; ++r) hi[r] = B::load_unaligned(row[r] + p + B::size);
          act(taps.AtSlide(lo, hi, col)).store_unaligned(y_c + p);
#pragma GCC unroll 8
          for (size_t r = 0; r < KH; ++r) lo[r] = hi[r];
          col += step;
          if (col >= pitch) col -= pitch;
        }
      }
    }
    for (; p < end; p += B::size) {
      act(taps.AtRow(src, static_cast<long>(p - shift), col)).store_unaligned(y_c + p);
      col += step;
      if (col >= pitch) col -= pitch;
    }
    return;
  }
  const B pitch(static_cast<float>(g.pitch)), step(static_cast<float>(g.step));
  for (; p < end; p += B::size) {
    act(taps.At(src, static_cast<long>(p - shift), ow)).store_unaligned(y_c + p);
    ow += step;  // (ow + W) mod pitch, ow and step both < pitch
    ow = xsimd::select(ow >= pitch, ow - pitch, ow);
  }
}

// y_c = act(conv(x_c) + bias) for one channel whose phase planes (or bands) are in buf.
template <class Arch, size_t KH, size_t KW, bool Slide, class Act>
void DwFlatChannel(const DwFlatPlan& g, const DwColumnMasks& masks, const float* buf,
                   const float* x_c, const float* w_c, float bias, const Act& act, float* y_c) {
  using B = FBatch<Arch>;
  constexpr size_t W = B::size;
  const DwFlatTaps<Arch, KH, KW> taps(g, masks, w_c, bias);
  const size_t n = g.n, full = n / W * W;
  const float* top = buf + g.lead;
  B ow = B::load_aligned(g.ow_first);
  size_t col = 0;
  // Where the last (overlapping) register reads from: the tail copy when banded.
  const float* last_src = top;
  size_t last_shift = 0;
  if (g.banded) {
    DwFlatRun<Arch, KH, KW, Slide, Act>(taps, g, top, 0, act, 0, g.p_lo, ow, col, y_c);
    DwFlatRun<Arch, KH, KW, Slide, Act>(taps, g, x_c, 0, act, g.p_lo, g.p_mid, ow, col, y_c);
    last_src = buf + g.bot_at, last_shift = g.bot_start;
    DwFlatRun<Arch, KH, KW, Slide, Act>(taps, g, last_src, last_shift, act, g.p_mid, full, ow, col,
                                        y_c);
  } else {
    DwFlatRun<Arch, KH, KW, Slide, Act>(taps, g, top, 0, act, 0, full, ow, col, y_c);
  }
  if (full == n) return;
  if (n >= W) {  // last partial register: recompute the overlapping one ending at n
    const long p = static_cast<long>(n - W - last_shift);
    const B last = taps.tables ? taps.AtRow(last_src, p, (n - W) % g.pitch)
                               : taps.At(last_src, p, B::load_aligned(g.ow_last));
    act(last).store_unaligned(y_c + n - W);
    return;
  }
  alignas(64) float tmp[W];
  act(taps.tables ? taps.AtRow(top, 0, 0) : taps.At(top, 0, ow)).store_aligned(tmp);
  for (size_t i = 0; i < n; ++i) y_c[i] = tmp[i];
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS

#if defined(__aarch64__)
#include "kernels/simd/conv2d_depthwise_flat_neon64.h"
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// All channels of one image; false (nothing written) when the shape is not for this path.
template <class Arch>
bool DwFlatImage(const Conv2dShape& s, const float* x, const float* w, const float* bias,
                 const Activation& act, float* y) {
  DwFlatPlan g;
  if (!DwFlatPlanFor(s, FBatch<Arch>::size, &g)) return false;
  alignas(64) float buf[kDwFlatMaxFloats];
  std::memset(buf, 0, g.buf_floats * sizeof(float));
  bool column_tables = true;  // the channels below read DwColumnMasks
#if defined(__aarch64__)
  DwNeonMasks masks;  // 3×3 on AArch64: conv2d_depthwise_flat_neon64.h, its own tables
  const bool neon3x3 = FBatch<Arch>::size == 4 && DwNeonMasksFor(g, &masks);
  column_tables = !neon3x3;
#endif
  DwColumnMasks masks_x;
  if (column_tables) DwColumnMasksFor(g, FBatch<Arch>::size, &masks_x);
  // Activations fused only for the unrolled 3×3/5×5 loops (fewer copies of the loop).
  const bool fixed = s.kh == s.kw && (s.kh == 3 || s.kh == 5);
  const bool fuse = fixed && DwActInline(act);
  // A row's taps are consecutive floats (AtSlide) at stride 1 without column dilation, and
  // the masks come from the tables. Its own instantiation, so the other paths compile as before.
  const bool slide = fixed && column_tables && masks_x.tables && DwSlidePays<Arch>(s.kw) &&
                     s.stride_w == 1 && s.dilation_w == 1;
  DwWithActivation<Arch>(fuse ? act : Activation{}, [&](const auto& f) {
    using Act = std::decay_t<decltype(f)>;
    void (*channel)(const DwFlatPlan&, const DwColumnMasks&, const float*, const float*,
                    const float*, float, const Act&, float*) = nullptr;
    if constexpr (std::is_same_v<Act, DwActNone<Arch>>)
      channel = &DwFlatChannel<Arch, 0, 0, false, Act>;
    if (s.kh == 3 && s.kw == 3)
      channel = slide ? &DwFlatChannel<Arch, 3, 3, DwSlidePays<Arch>(3), Act>
                      : &DwFlatChannel<Arch, 3, 3, false, Act>;
    if (s.kh == 5 && s.kw == 5)
      channel = slide ? &DwFlatChannel<Arch, 5, 5, DwSlidePays<Arch>(5), Act>
                      : &DwFlatChannel<Arch, 5, 5, false, Act>;
    const size_t taps = s.kh * s.kw;
    for (size_t c = 0; c < s.out_c; ++c) {
      const float* x_c = x + c * ConvXPlane(s);
      DwFlatFill<Arch>(s, g, x_c, buf);
      float* y_c = y + c * ConvYPlane(s);
      const float b = bias != nullptr ? bias[c] : 0.0f;
#if defined(__aarch64__)
      if (neon3x3)
        DwFlatChannelNeon3x3<Arch, Act>(g, masks, buf, x_c, w + c * taps, b, f, y_c);
      else
#endif
        channel(g, masks_x, buf, x_c, w + c * taps, b, f, y_c);
      if (!fuse && act.kind != ActKind::kNone) ActivationKernel<Arch>(y_c, y_c, g.n, act);
    }
  });
  return true;
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
