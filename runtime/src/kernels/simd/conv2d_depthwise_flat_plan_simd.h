// The plan of the flat-plane depthwise convolution (conv2d_depthwise_flat_simd.h): the stride
// phases, the bands of lanes whose taps stay inside a row, the column masks, and the fill of
// one channel's phase planes.
#pragma once
#include <cstring>
#include <type_traits>

#include "kernels/simd/conv2d_depthwise_act_simd.h"
#include "kernels/simd/conv2d_depthwise_unzip_simd.h"
#include "kernels/simd/elementwise_simd.h"

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

constexpr size_t kDwFlatMaxFloats = 16384;  // stack floats for all phase planes of a channel
constexpr size_t kDwFlatMaxK = 8;           // kh, kw

struct DwFlatPlan {
  size_t sh, sw, kh, kw, pitch, n, step;  // pitch = out_w, n = out_h·out_w, step = W mod pitch
  size_t rows[2], cols[2];                // per phase a / b: input rows / columns it holds
  size_t lead, plane_floats;              // zero floats before each plane's data; floats per plane
  long row_off[kDwFlatMaxK], col_off[kDwFlatMaxK];  // tap (r,t) at row_off[r] + col_off[t]
  float col_lo[kDwFlatMaxK], col_hi[kDwFlatMaxK];   // lanes of column t kept: lo ≤ ow < hi
  bool col_masked[kDwFlatMaxK];
  alignas(64) float ow_first[16];  // ow of lanes 0..W−1 and of lanes n−W..n−1
  alignas(64) float ow_last[16];
  // Stride 1 with pitch == in_w on a large plane ("banded"): registers [p_lo, p_mid) read x_c in
  // place; those before read the first top_copy floats copied after `lead` zeros, those after
  // read x_c[bot_start, in_h·in_w) copied to buf + bot_at and followed by zeros.
  bool banded;
  size_t p_lo, p_mid, top_copy, bot_start, bot_at;
  size_t buf_floats;  // floats of buf in use (zeroed once per image)
};

inline long DwFloorDiv(long v, long d) { return v >= 0 ? v / d : -((-v + d - 1) / d); }

// Sets the banded fields of g (see DwFlatPlan); min_off/max_off bound the tap offsets.
inline void DwFlatBands(const Conv2dShape& s, size_t lanes, long min_off, long max_off,
                        DwFlatPlan* g) {
  g->banded = false;
  g->buf_floats = g->sh * g->sw * g->plane_floats;
  if (g->sh != 1 || g->sw != 1 || g->pitch != s.in_w) return;
  const long w = static_cast<long>(lanes), data = static_cast<long>(s.in_h * s.in_w),
             n = static_cast<long>(g->n);
  const long p_lo =
      (std::max(0L, -min_off) + w - 1) / w * w;  // first register reading no lead zero
  const long last = data - w - max_off;          // last start reading no tail zero
  const long p_mid = last >= 0 ? std::min(n / w * w, (last / w + 1) * w) : 0;
  if (p_mid < p_lo + 4 * w) return;      // small plane: one copy is cheaper than three segments
  const long top_need = p_lo + max_off;  // registers below p_lo read flat indices < top_need
  const long p_bot =
      n % w != 0 ? std::min(p_mid, n - w) : p_mid;  // first register from the tail copy
  const long bot_start = std::max(0L, p_bot + min_off);
  const long bot_reach = std::max(n, w) + max_off - bot_start;
  const size_t top_floats = (g->lead + static_cast<size_t>(top_need) + 15) / 16 * 16;
  const size_t bot_floats = (static_cast<size_t>(bot_reach) + 15) / 16 * 16;
  if (top_floats + bot_floats > kDwFlatMaxFloats) return;
  g->banded = true;
  g->p_lo = static_cast<size_t>(p_lo), g->p_mid = static_cast<size_t>(p_mid);
  g->top_copy = static_cast<size_t>(std::min(top_need, data));
  g->bot_start = static_cast<size_t>(bot_start), g->bot_at = top_floats;
  g->buf_floats = top_floats + bot_floats;
}

// Fills g for shape s and W lanes; false when the shape is not for this path.
inline bool DwFlatPlanFor(const Conv2dShape& s, size_t lanes, DwFlatPlan* g) {
  if (s.stride_h > 2 || s.stride_w > 2 || s.kh > kDwFlatMaxK || s.kw > kDwFlatMaxK) return false;
  if (s.out_h == 0 || s.out_w == 0 || s.in_h == 0 || s.in_w == 0) return false;
  g->sh = s.stride_h, g->sw = s.stride_w, g->kh = s.kh, g->kw = s.kw;
  g->pitch = s.out_w, g->n = s.out_h * s.out_w, g->step = lanes % s.out_w;
  for (size_t a = 0; a < 2; ++a) {
    g->rows[a] = s.in_h > a ? (s.in_h - a + g->sh - 1) / g->sh : 0;
    g->cols[a] = s.in_w > a ? (s.in_w - a + g->sw - 1) / g->sw : 0;
  }
  if (g->cols[0] > g->pitch) return false;
  const long pitch = static_cast<long>(g->pitch);
  long min_row = 0, max_row = 0, min_col = 0, max_col = 0;
  for (size_t r = 0; r < s.kh; ++r) {
    const long sr =
        DwFloorDiv(static_cast<long>(r * s.dilation_h) - static_cast<long>(s.pad_top), g->sh);
    min_row = r == 0 ? sr : std::min(min_row, sr), max_row = r == 0 ? sr : std::max(max_row, sr);
  }
  for (size_t t = 0; t < s.kw; ++t) {
    const long sc =
        DwFloorDiv(static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left), g->sw);
    min_col = t == 0 ? sc : std::min(min_col, sc), max_col = t == 0 ? sc : std::max(max_col, sc);
  }
  const long min_off = min_row * pitch + min_col, max_off = max_row * pitch + max_col;
  g->lead = (static_cast<size_t>(std::max(0L, -min_off)) + 15) / 16 * 16;
  // Reads reach flat index max(n, W) − 1 + max_off (the last register may run past n).
  const long data = static_cast<long>(g->rows[0] * g->pitch);
  const long reach = static_cast<long>(std::max(g->n, lanes)) + max_off;
  g->plane_floats = (g->lead + static_cast<size_t>(std::max({data, reach, 1L})) + 15) / 16 * 16;
  if (g->sh * g->sw * g->plane_floats > kDwFlatMaxFloats) return false;
  const long plane = static_cast<long>(g->plane_floats);
  for (size_t r = 0; r < s.kh; ++r) {
    const long v = static_cast<long>(r * s.dilation_h) - static_cast<long>(s.pad_top);
    const long sr = DwFloorDiv(v, g->sh), a = v - sr * static_cast<long>(g->sh);
    g->row_off[r] = a * static_cast<long>(g->sw) * plane + sr * pitch;
  }
  for (size_t t = 0; t < s.kw; ++t) {
    const long u = static_cast<long>(t * s.dilation_w) - static_cast<long>(s.pad_left);
    const long sc = DwFloorDiv(u, g->sw), b = u - sc * static_cast<long>(g->sw);
    g->col_off[t] = b * plane + sc;
    g->col_lo[t] = static_cast<float>(-sc);
    g->col_hi[t] = static_cast<float>(static_cast<long>(g->cols[b]) - sc);
    g->col_masked[t] = -sc > 0 || static_cast<long>(g->cols[b]) - sc < pitch;
  }
  DwFlatBands(s, lanes, min_off, max_off, g);
  for (size_t i = 0; i < 16; ++i) {
    g->ow_first[i] = static_cast<float>(i % g->pitch);
    g->ow_last[i] = g->n >= lanes ? static_cast<float>((g->n - lanes + i) % g->pitch) : 0.0f;
  }
  return true;
}

// Column masks as tables, built once per image: lane i of the register whose first output
// sits in column r of its row is column (r + i) mod pitch, so column t's keep-mask for that
// register is bits[t][r .. r + W) of a pattern pitch + W floats long (all ones where
// lo[t] ≤ ow < hi[t], else +0). One load and one and per masked column and register instead of
// two compares, an and and a select, and the register's column tracked as a scalar r instead of
// a vector add, compare and select. For rows up to kDwMaskPitch wide (the tables live on the
// stack); wider rows keep the compares.
constexpr size_t kDwMaskPitch = 240;
constexpr size_t kDwMaskFloats = kDwMaskPitch + 16;

// All bits set: the keep-mask of a column no lane of which is dropped.
struct DwAllLanes {
  alignas(64) uint32_t bits[kDwMaskFloats];
  constexpr DwAllLanes() : bits() {
    for (uint32_t& b : bits) b = ~0u;
  }
};
inline constexpr DwAllLanes kDwAllLanes{};

struct DwColumnMasks {
  bool tables = false;
  alignas(64) float bits[kDwFlatMaxK][kDwMaskFloats];
};

inline void DwColumnMasksFor(const DwFlatPlan& g, size_t lanes, DwColumnMasks* m) {
  m->tables = g.pitch <= kDwMaskPitch;
  if (!m->tables) return;
  const uint32_t ones = ~0u, none = 0u;
  for (size_t t = 0; t < g.kw; ++t) {
    if (!g.col_masked[t]) continue;
    for (size_t r = 0; r < g.pitch + lanes; ++r) {
      const float ow = static_cast<float>(r % g.pitch);
      std::memcpy(&m->bits[t][r], ow >= g.col_lo[t] && ow < g.col_hi[t] ? &ones : &none,
                  sizeof(float));
    }
  }
}

// Writes channel x_c into the phase planes of buf (zeroed once per image: only data positions
// are written, so the zero rows and the gap columns cols_b..pitch stay zero).
template <class Arch>
void DwFlatFill(const Conv2dShape& s, const DwFlatPlan& g, const float* x_c, float* buf) {
  float* base = buf + g.lead;
  if (g.banded) {
    std::memcpy(base, x_c, g.top_copy * sizeof(float));
    std::memcpy(buf + g.bot_at, x_c + g.bot_start, (s.in_h * s.in_w - g.bot_start) * sizeof(float));
    return;
  }
  if (g.sh == 1 && g.sw == 1 && g.pitch == s.in_w) {
    std::memcpy(base, x_c, s.in_h * s.in_w * sizeof(float));
    return;
  }
  const size_t row_shift = g.sh - 1, row_phase = g.sh - 1;  // sh is 1 or 2: no division per row
  for (size_t i = 0; i < s.in_h; ++i) {
    float* row = base + (i & row_phase) * g.sw * g.plane_floats + (i >> row_shift) * g.pitch;
    if (g.sw == 1)
      std::memcpy(row, x_c + i * s.in_w, s.in_w * sizeof(float));
    else
      DwUnzip<Arch>(x_c + i * s.in_w, s.in_w, row, row + g.plane_floats);
  }
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
