// Winograd convolution (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2016)
// for 3×3, stride-1, dilation-1, ungrouped convs, in two tile sizes:
//   F(2×2, 3×3): 4×4 input patches, 16 multiplies per 2×2 output tile and channel pair (4 per
//                output instead of 9); exact in the transforms (±1, ½).
//   F(4×4, 3×3): 6×6 input patches, 36 multiplies per 4×4 tile (2.25 per output); transforms
//                with 2, 4, 5, 8 and 1/4, 1/6, 1/12, 1/24, so a little less exact (≈1e-6 relative
//                error against ≈1e-7), and 4× fewer, larger tiles: better on wide planes.
//   Y = Aᵀ[U ⊙ V]A per tile,  U = G g Gᵀ (α×α per filter, α = tile + 2),  V = Bᵀ d B.
// The compiler stores U as [α][α][out_c][in_c] (WeightPacking Winograd2x3 / Winograd4x3). Per
// band of tile rows the runtime transforms the input into V[α²][in_c][tiles] (table kernel), runs
// α² GEMMs M_ξ = U_ξ·V_ξ, and transforms M back into y with the bias and activation (table
// kernel). Bands keep V and M near L2 size.
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"
#include "kernels/conv_kernel_table.h"
#include "kernels/kernel_table.h"

namespace edgefold::kernels {

struct WinogradLayout {
  size_t tile = 0;   // outputs per tile side: 2 or 4
  size_t alpha = 0;  // tile + 2: input patch side; α² GEMMs per band
  size_t tiles_h = 0, band_rows = 0;
  WinogradGeometry geometry;  // row0/rows are set per band
  size_t planes_floats = 0, v_floats = 0, m_floats = 0;
  size_t scratch_bytes = 0;  // SIZE_MAX when a size overflows or the tile size is not 2 or 4
};

// 3×3, stride 1, dilation 1, group 1: the shapes the transforms are exact for.
bool ConvIsWinograd(const Conv2dShape& s);
// tile: 2 for F(2×2, 3×3), 4 for F(4×4, 3×3).
WinogradLayout MakeWinogradLayout(const Conv2dShape& s, size_t tile);

// One image: y = act(conv(x, g) + bias) with u = the transformed filters [α²][out_c][in_c].
// scratch: 64-byte aligned, layout.scratch_bytes.
void Conv2dWinograd(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                    const WinogradLayout& layout, const float* x, const float* u, const float* bias,
                    Activation act, float* y, float* scratch);

// The same in steps, so the α² GEMMs of a band can be split over threads: the column planes
// once, then per band of tile rows its input transform, the GEMMs ξ ∈ [xi_begin, xi_end) (each
// writes its own M_ξ), its output transform.
size_t WinogradBands(const WinogradLayout& layout);
// The fill and the input transform take input channels [c_begin, c_end), the output transform
// output channels [o_begin, o_end), so threads can split them too (ends clamp to the count).
void WinogradFill(const Conv2dShape& s, const WinogradLayout& layout, const float* x,
                  float* scratch, size_t c_begin = 0, size_t c_end = ~size_t{0});
void WinogradBandInput(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                       const WinogradLayout& layout, size_t band, float* scratch,
                       size_t c_begin = 0, size_t c_end = ~size_t{0});
void WinogradBandGemms(const KernelTable& t, const Conv2dShape& s, const WinogradLayout& layout,
                       size_t band, const float* u, float* scratch, size_t xi_begin, size_t xi_end);
void WinogradBandOutput(const ConvKernelTable& ct, const WinogradLayout& layout, size_t band,
                        const float* bias, Activation act, float* y, float* scratch,
                        size_t o_begin = 0, size_t o_end = ~size_t{0});

// Or split by tile rows, each thread on its own rows from the fill to the output in two steps
// (WinogradFillTileRows, then WinogradTileRows): split by channels and ξ, every step read half
// its data from the other core's cache (F(4,3) at 56² × 64 on two threads of an AMD Zen 5: input
// transform 80 → 139 µs, output transform no faster), and split by columns inside a band, the
// threads wrote the same output rows. The band's V and M room is cut into `slices` slices, one
// per thread; a thread transforms, multiplies and transforms back its rows in chunks of
// chunk_rows tile rows in its slice. Its GEMMs run whole registers of columns (chunks pad to 16),
// so every output sums the same way whatever the split. slices is 0 when the slices do not fit
// (bands of a few short tile rows) or U is larger than a band's V and M: the per-step split
// serves those.
struct WinogradRowSplit {
  size_t slices = 0, chunk_rows = 0, ld = 0;
};
WinogradRowSplit MakeWinogradRowSplit(const WinogradLayout& layout, size_t slices);
// The column planes' rows that tile rows [row_begin, row_end) start on (the last range: to the
// end), so each thread fills the rows it reads, but for the two each reads of the next range.
void WinogradFillTileRows(const Conv2dShape& s, const WinogradLayout& layout, const float* x,
                          float* scratch, size_t row_begin, size_t row_end);
// Tile rows [row_begin, row_end) in slice `slice`, once the fill is done.
void WinogradTileRows(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                      const WinogradLayout& layout, const WinogradRowSplit& split, size_t slice,
                      const float* u, const float* bias, Activation act, float* y, float* scratch,
                      size_t row_begin, size_t row_end);

// Or each thread in a slice of its own (a plan of `compile --threads N`: the compiler puts slice
// t of every such conv at one arena place, so a thread writes lines only its own cache held, op
// after op). A slice holds the column planes of up to `rows` tile rows (and the two plane rows
// below them) and the V and M room of chunk_rows tile rows. A thread fills its planes, then
// transforms, multiplies and transforms back chunk by chunk, all in one parallel step. Each
// output sums as in WinogradTileRows (whole registers of columns), so the bits do not change.
struct WinogradSlice {
  size_t rows = 0, chunk_rows = 0, ld = 0;
  size_t planes_floats = 0, v_floats = 0, m_floats = 0;
  size_t bytes = 0;  // a multiple of 64; SIZE_MAX on overflow
};
// The slice of tile rows per fill (at least 1, at most layout.tiles_h).
WinogradSlice MakeWinogradSlice(const WinogradLayout& layout, size_t rows);
// Tile rows [row_begin, row_end) in `slice_scratch` (64-byte aligned, slice.bytes), in runs of
// slice.rows: fill, then the transforms and GEMMs.
void WinogradSliceRows(const KernelTable& t, const ConvKernelTable& ct, const Conv2dShape& s,
                       const WinogradLayout& layout, const WinogradSlice& slice, const float* x,
                       const float* u, const float* bias, Activation act, float* y,
                       float* slice_scratch, size_t row_begin, size_t row_end);

// U[ξ = α·i + j][o][c] = (G g[o][c] Gᵀ)[i][j] for w [out_c][in_c][3][3], in double precision.
// tile 2: G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1]
// tile 4: G = [¼ 0 0; −⅙ −⅙ −⅙; −⅙ ⅙ −⅙; 1⁄24 1⁄12 ⅙; 1⁄24 −1⁄12 ⅙; 0 0 1]
void WinogradTransformFilters(const float* w, size_t out_c, size_t in_c, size_t tile, float* u);

}  // namespace edgefold::kernels
