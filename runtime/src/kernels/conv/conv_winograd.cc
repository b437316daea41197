#include "kernels/conv/conv_winograd.h"

#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_phase.h"
#include "base/size_math.h"

namespace edgefold::kernels {
namespace {

// Bands of about this many floats of V + M (α²·(in_c + out_c) per tile) stay near L2.
constexpr size_t kBandFloats = 192 * 1024;
constexpr size_t kMinBandTiles = 48;  // three 16-float registers of GEMM columns

// The padded input's columns by phase modulo the tile (even and odd for F(2,3), four phases for
// F(4,3)), per channel: the phase planes of a stride-1 × tile layout (kernels/conv_phase.h),
// which fills them. Patch column j of tile tx is then phase j mod tile at column tx + j / tile.
void FillColumnPlanes(const Conv2dShape& s, const WinogradLayout& l, const float* x, float* planes,
                      size_t c_begin, size_t c_end, size_t row_begin = 0,
                      size_t row_end = ~size_t{0}) {
  Conv2dShape phases = s;
  phases.stride_h = 1, phases.stride_w = l.tile;
  ConvPhaseLayout pl;
  pl.plane_h = l.geometry.plane_rows, pl.plane_w = l.geometry.plane_w;
  pl.plane_floats = pl.plane_h * pl.plane_w;
  pl.channel_floats = l.geometry.channel_floats;
  pl.planes_floats = l.planes_floats;
  FillPhasePlanes(phases, pl, x, planes, c_begin, c_end, row_begin, row_end);
}

// Row pitch ld of V and M, and the ξ strides (one cache line past in_c·ld, out_c·ld).
void SetColumns(size_t ld, WinogradGeometry* g) {
  g->ld = ld;
  g->v_stride = AddSat(MulSat(g->in_c, ld), 16);
  g->m_stride = AddSat(MulSat(g->out_c, ld), 16);
}

}  // namespace

bool ConvIsWinograd(const Conv2dShape& s) {
  return s.kh == 3 && s.kw == 3 && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
         s.dilation_w == 1 && s.group == 1 && s.out_h > 0 && s.out_w > 0;
}

WinogradLayout MakeWinogradLayout(const Conv2dShape& s, size_t tile) {
  WinogradLayout l;
  l.scratch_bytes = kSizeSaturated;
  if (!ConvIsWinograd(s) || (tile != 2 && tile != 4)) return l;
  l.tile = tile, l.alpha = tile + 2;
  const size_t xis = l.alpha * l.alpha;
  WinogradGeometry& g = l.geometry;
  l.tiles_h = (s.out_h + tile - 1) / tile;
  g.tiles_w = (s.out_w + tile - 1) / tile;
  g.plane_w = g.tiles_w + 1;
  g.plane_rows = tile * l.tiles_h + 2;
  g.channel_floats = MulSat(tile, MulSat(g.plane_rows, g.plane_w));
  g.in_c = s.in_c, g.out_c = s.out_c, g.out_h = s.out_h, g.out_w = s.out_w;
  const size_t per_tile = MulSat(xis, AddSat(s.in_c, s.out_c));
  const size_t band_tiles = std::max(kMinBandTiles, kBandFloats / std::max<size_t>(per_tile, 1));
  l.band_rows = std::min(l.tiles_h, std::max<size_t>(1, (band_tiles + g.tiles_w - 1) / g.tiles_w));
  l.planes_floats = RoundUpSat(AddSat(MulSat(s.in_c, g.channel_floats), 32), 16);
  SetColumns(RoundUpSat(AddSat(MulSat(l.band_rows, g.tiles_w), 15), 16), &g);
  l.v_floats = MulSat(xis, g.v_stride);
  l.m_floats = MulSat(xis, g.m_stride);
  l.scratch_bytes = MulSat(AddSat(AddSat(l.planes_floats, l.v_floats), l.m_floats), sizeof(float));
  return l;
}

namespace {

// Scratch: [column planes | V, α² matrices | M, α² matrices].
float* VOf(const WinogradLayout& l, float* scratch) { return scratch + l.planes_floats; }
float* MOf(const WinogradLayout& l, float* scratch) {
  return scratch + l.planes_floats + l.v_floats;
}

// The band of tile rows starting at row0.
WinogradGeometry BandOf(const WinogradLayout& l, size_t row0) {
  WinogradGeometry g = l.geometry;
  g.row0 = row0;
  g.rows = std::min(l.band_rows, l.tiles_h - row0);
  return g;
}

// Whole registers of this table's width (ld leaves room for 16): the GEMM never takes its narrow
// tail path, and rounds no further than it must (F(4,3) at 56²: 56 columns a band on AVX2, not
// 64). The extra columns read V's zeroed padding and write M's padding, which nothing reads.
size_t WholeColumns(const KernelTable& t, const WinogradGeometry& g) {
  const size_t lanes = t.simd_floats > 0 ? t.simd_floats : 1;
  return (g.rows * g.tiles_w + lanes - 1) / lanes * lanes;
}

// The input transform of g's tiles (its g.in_c channels of `planes`) into v, then zeros in the
// columns past the tiles that the GEMMs' whole registers read.
void TransformInput(const KernelTable& t, const ConvKernelTable& ct, const WinogradLayout& l,
                    const WinogradGeometry& g, const float* planes, float* v) {
  (l.tile == 4 ? ct.winograd43_input : ct.winograd23_input)(g, planes, v);
  const size_t n = g.rows * g.tiles_w, n_whole = WholeColumns(t, g);
  if (n_whole == n) return;
  for (size_t xi = 0; xi < l.alpha * l.alpha; ++xi)
    for (size_t c = 0; c < g.in_c; ++c)
      std::memset(v + xi * g.v_stride + c * g.ld + n, 0, (n_whole - n) * sizeof(float));
}

// M_ξ = U_ξ·V_ξ over g's whole-register columns, ξ ∈ [xi_begin, xi_end).
void MultiplyTiles(const KernelTable& t, const Conv2dShape& s, const WinogradGeometry& g,
                   const float* u, const float* v, float* m, size_t xi_begin, size_t xi_end) {
  GemmParams p;
  p.m = s.out_c, p.n = WholeColumns(t, g), p.k = s.in_c;
  p.lda = s.in_c, p.ldb = g.ld, p.ldc = g.ld;
  p.prefetch_a = true;  // each U_ξ serves one band's columns, then the next ξ's streams in
  for (size_t xi = xi_begin; xi < xi_end; ++xi)
    t.gemm(p, u + xi * s.out_c * s.in_c, v + xi * g.v_stride, m + xi * g.m_stride);
}

void TransformOutput(const ConvKernelTable& ct, const WinogradLayout& l, const WinogradGeometry& g,
                     const float* m, const float* bias, Activation act, float* y) {
  (l.tile == 4 ? ct.winograd43_output : ct.winograd23_output)(g, m, bias, act, y);
}

}  // namespace

size_t WinogradBands(const WinogradLayout& l) {
  return (l.tiles_h + l.band_rows - 1) / l.band_rows;
}

void WinogradFill(const Conv2dShape& s, const WinogradLayout& l, const float* x, float* scratch,
                  size_t c_begin, size_t c_end) {
  FillColumnPlanes(s, l, x, scratch, c_begin, c_end);
}

void WinogradFillTileRows(const Conv2dShape& s, const WinogradLayout& l, const float* x,
                          float* scratch, size_t row_begin, size_t row_end) {
  // Tile row ty reads plane rows tile·ty … tile·ty + tile + 1: the last range fills the rest.
  const size_t end = row_end >= l.tiles_h ? l.geometry.plane_rows : l.tile * row_end;
  FillColumnPlanes(s, l, x, scratch, 0, s.in_c, l.tile * row_begin, end);
}

void WinogradBandInput(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                       const WinogradLayout& l, size_t band, float* scratch, size_t c_begin,
                       size_t c_end) {
  c_end = std::min(c_end, s.in_c);
  if (c_begin >= c_end) return;
  WinogradGeometry g = BandOf(l, band * l.band_rows);
  g.in_c = c_end - c_begin;
  TransformInput(t, ct, l, g, scratch + c_begin * g.channel_floats,
                 VOf(l, scratch) + c_begin * g.ld);
}

void WinogradBandGemms(const KernelTable& t, const Conv2dShape& s, const WinogradLayout& l,
                       size_t band, const float* u, float* scratch, size_t xi_begin,
                       size_t xi_end) {
  MultiplyTiles(t, s, BandOf(l, band * l.band_rows), u, VOf(l, scratch), MOf(l, scratch), xi_begin,
                std::min(xi_end, l.alpha * l.alpha));
}

void WinogradBandOutput(const ConvKernelTable& ct, const WinogradLayout& l, size_t band,
                        const float* bias, Activation act, float* y, float* scratch, size_t o_begin,
                        size_t o_end) {
  WinogradGeometry g = BandOf(l, band * l.band_rows);
  o_end = std::min(o_end, g.out_c);
  if (o_begin >= o_end) return;
  g.out_c = o_end - o_begin;
  TransformOutput(ct, l, g, MOf(l, scratch) + o_begin * g.ld,
                  bias != nullptr ? bias + o_begin : nullptr, act, y + o_begin * g.out_h * g.out_w);
}

WinogradRowSplit MakeWinogradRowSplit(const WinogradLayout& l, size_t slices) {
  WinogradRowSplit split;
  if (slices == 0 || l.scratch_bytes == kSizeSaturated) return split;
  // Each thread reads all of U once per chunk, where the per-step split reads half of it once
  // per band: worth it while U is smaller than a band's V and M, the data the threads would
  // otherwise pass between their caches (ResNet-18's 56² × 64: U 0.6 MB, V + M 1 MB, two
  // threads 0.82–0.89 → 0.71–0.75 ms per conv on AMD Zen 5; its 28² × 128 with a U of 2.4 MB
  // against 1.8 MB ran slower split by rows).
  const WinogradGeometry& band = l.geometry;
  if (slices > 1 && MulSat(band.in_c, band.out_c) >
                        MulSat(AddSat(band.in_c, band.out_c), l.band_rows * band.tiles_w))
    return split;
  const size_t xis = l.alpha * l.alpha;
  // Fewer rows per chunk until `slices` slices fit where the layout has room for one band: each
  // slice adds a cache line per ξ (the strides' skew) and its rounding to 16 columns.
  for (size_t rows = l.band_rows / slices; rows > 0; --rows) {
    WinogradGeometry g = l.geometry;
    SetColumns(RoundUpSat(MulSat(rows, g.tiles_w), 16), &g);
    if (MulSat(MulSat(slices, xis), g.v_stride) <= l.v_floats &&
        MulSat(MulSat(slices, xis), g.m_stride) <= l.m_floats) {
      split.slices = slices, split.chunk_rows = rows, split.ld = g.ld;
      return split;
    }
  }
  return split;
}

void WinogradTileRows(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                      const WinogradLayout& l, const WinogradRowSplit& split, size_t slice,
                      const float* u, const float* bias, Activation act, float* y, float* scratch,
                      size_t row_begin, size_t row_end) {
  const size_t xis = l.alpha * l.alpha;
  WinogradGeometry g = l.geometry;
  SetColumns(split.ld, &g);
  float* v = VOf(l, scratch) + slice * xis * g.v_stride;
  float* m = MOf(l, scratch) + slice * xis * g.m_stride;
  row_end = std::min(row_end, l.tiles_h);
  for (size_t row0 = row_begin; row0 < row_end; row0 += split.chunk_rows) {
    g.row0 = row0, g.rows = std::min(split.chunk_rows, row_end - row0);
    TransformInput(t, ct, l, g, scratch, v);
    MultiplyTiles(t, s, g, u, v, m, 0, xis);
    TransformOutput(ct, l, g, m, bias, act, y);
  }
}

WinogradSlice MakeWinogradSlice(const WinogradLayout& l, size_t rows) {
  WinogradSlice slice;
  slice.bytes = kSizeSaturated;
  if (l.scratch_bytes == kSizeSaturated || l.tiles_h == 0) return slice;
  slice.rows = std::min(std::max<size_t>(rows, 1), l.tiles_h);
  slice.chunk_rows = std::min(slice.rows, l.band_rows);
  const WinogradGeometry& g = l.geometry;
  const size_t channel_floats = MulSat(l.tile, MulSat(l.tile * slice.rows + 2, g.plane_w));
  slice.planes_floats = RoundUpSat(AddSat(MulSat(g.in_c, channel_floats), 32), 16);
  WinogradGeometry chunk = g;
  SetColumns(RoundUpSat(MulSat(slice.chunk_rows, g.tiles_w), 16), &chunk);
  slice.ld = chunk.ld;
  const size_t xis = l.alpha * l.alpha;
  slice.v_floats = MulSat(xis, chunk.v_stride);
  slice.m_floats = MulSat(xis, chunk.m_stride);
  slice.bytes = RoundUpSat(
      MulSat(AddSat(AddSat(slice.planes_floats, slice.v_floats), slice.m_floats), sizeof(float)),
      64);
  return slice;
}

namespace {

// The column planes of tile rows [row0, row0 + rows) into `planes`, laid out as the layout's
// but `rows`·tile + 2 plane rows per phase: plane row r holds padded row tile·row0 + r.
// Per channel, so that x can start at the first row the planes read.
WinogradGeometry FillSlicePlanes(const Conv2dShape& s, const WinogradLayout& l, const float* x,
                                 size_t row0, size_t rows, float* planes) {
  WinogradGeometry g = l.geometry;
  g.plane_rows = l.tile * rows + 2;
  g.channel_floats = l.tile * g.plane_rows * g.plane_w;
  Conv2dShape part = s;  // the input rows from padded row tile·row0 on
  const size_t first = l.tile * row0;
  size_t skip = 0;
  if (first >= s.pad_top) {
    skip = std::min(first - s.pad_top, s.in_h);
    part.pad_top = 0;
  } else {
    part.pad_top = s.pad_top - first;
  }
  part.in_h = s.in_h - skip;
  part.in_c = part.group = 1;
  WinogradLayout pl = l;
  pl.geometry = g;
  pl.planes_floats = g.channel_floats;
  for (size_t c = 0; c < s.in_c; ++c)
    FillColumnPlanes(part, pl, x + (c * s.in_h + skip) * s.in_w, planes + c * g.channel_floats, 0,
                     1);
  return g;
}

}  // namespace

void WinogradSliceRows(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                       const WinogradLayout& l, const WinogradSlice& slice, const float* x,
                       const float* u, const float* bias, Activation act, float* y,
                       float* slice_scratch, size_t row_begin, size_t row_end) {
  const size_t xis = l.alpha * l.alpha;
  float* v = slice_scratch + slice.planes_floats;
  float* m = v + slice.v_floats;
  row_end = std::min(row_end, l.tiles_h);
  for (size_t fill0 = row_begin; fill0 < row_end; fill0 += slice.rows) {
    const size_t fill_rows = std::min(slice.rows, row_end - fill0);
    WinogradGeometry in = FillSlicePlanes(s, l, x, fill0, fill_rows, slice_scratch);
    SetColumns(slice.ld, &in);
    WinogradGeometry out = l.geometry;
    SetColumns(slice.ld, &out);
    for (size_t row0 = fill0; row0 < fill0 + fill_rows; row0 += slice.chunk_rows) {
      out.row0 = row0, out.rows = std::min(slice.chunk_rows, fill0 + fill_rows - row0);
      in.row0 = row0 - fill0, in.rows = out.rows;
      TransformInput(t, ct, l, in, slice_scratch, v);
      MultiplyTiles(t, s, out, u, v, m, 0, xis);
      TransformOutput(ct, l, out, m, bias, act, y);
    }
  }
}

void Conv2dWinograd(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                    const WinogradLayout& l, const float* x, const float* u, const float* bias,
                    Activation act, float* y, float* scratch) {
  WinogradFill(s, l, x, scratch);
  for (size_t band = 0; band < WinogradBands(l); ++band) {
    WinogradBandInput(t, ct, s, l, band, scratch);
    WinogradBandGemms(t, s, l, band, u, scratch, 0, l.alpha * l.alpha);
    WinogradBandOutput(ct, l, band, bias, act, y, scratch);
  }
}

void WinogradTransformFilters(const float* w, size_t out_c, size_t in_c, size_t tile, float* u) {
  static const double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static const double kG4[6][3] = {{0.25, 0, 0},
                                   {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                   {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                   {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                   {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                   {0, 0, 1}};
  const size_t alpha = tile + 2;
  const double(*kG)[3] = tile == 4 ? kG4 : kG2;
  for (size_t o = 0; o < out_c; ++o)
    for (size_t c = 0; c < in_c; ++c) {
      const float* g = w + (o * in_c + c) * 9;
      double gg[6][3];  // G·g
      for (size_t i = 0; i < alpha; ++i)
        for (size_t k = 0; k < 3; ++k)
          gg[i][k] = kG[i][0] * g[0 * 3 + k] + kG[i][1] * g[1 * 3 + k] + kG[i][2] * g[2 * 3 + k];
      for (size_t i = 0; i < alpha; ++i)
        for (size_t j = 0; j < alpha; ++j)
          u[((i * alpha + j) * out_c + o) * in_c + c] =
              static_cast<float>(gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2]);
    }
}

}  // namespace edgefold::kernels
