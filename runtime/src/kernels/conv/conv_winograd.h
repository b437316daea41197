// Winograd F(2×2, 3×3) convolution (Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016) for 3×3, stride-1, dilation-1, ungrouped convs:
//   Y = Aᵀ[U ⊙ V]A per 2×2 output tile,  U = G g Gᵀ (4×4 per filter),  V = Bᵀ d B (d: 4×4 patch)
// 16 multiplies per tile and channel pair instead of 36. The compiler stores U as
// [16][out_c][in_c] (WeightPacking Winograd2x3). Per band of tile rows the runtime transforms the
// input into V[16][in_c][tiles] (table kernel), runs 16 GEMMs M_ξ = U_ξ·V_ξ, and transforms M
// back into y with the bias and activation (table kernel). Bands keep V and M near L2 size.
#pragma once
#include <cstddef>

#include "kernels/kernel_params.h"
#include "kernels/kernel_table.h"

namespace edgefold::kernels {

struct Winograd23Layout {
  size_t tiles_h = 0, band_rows = 0;
  Winograd23Geometry geometry;   // row0/rows are set per band
  size_t planes_floats = 0, v_floats = 0, m_floats = 0;
  size_t scratch_bytes = 0;      // SIZE_MAX when a size overflows
};

// 3×3, stride 1, dilation 1, group 1: the shapes the transform is exact for.
bool ConvIsWinograd23(const Conv2dShape& s);
Winograd23Layout MakeWinograd23Layout(const Conv2dShape& s);

// One image: y = act(conv(x, g) + bias) with u = the transformed filters [16][out_c][in_c].
// scratch: 64-byte aligned, layout.scratch_bytes.
void Conv2dWinograd23(const KernelTable& t, const Conv2dShape& s, const Winograd23Layout& layout,
                      const float* x, const float* u, const float* bias, Activation act, float* y,
                      float* scratch);

// The same in steps, so the 16 GEMMs of a band can be split over threads: the column planes
// once, then per band of tile rows its input transform, the GEMMs ξ ∈ [xi_begin, xi_end) (each
// writes its own M_ξ), its output transform.
size_t Winograd23Bands(const Winograd23Layout& layout);
// The fill and the input transform take input channels [c_begin, c_end), the output transform
// output channels [o_begin, o_end), so threads can split them too (ends clamp to the count).
void Winograd23Fill(const Conv2dShape& s, const Winograd23Layout& layout, const float* x, float* scratch,
                    size_t c_begin = 0, size_t c_end = ~size_t{0});
void Winograd23BandInput(const KernelTable& t, const Conv2dShape& s, const Winograd23Layout& layout, size_t band,
                         float* scratch, size_t c_begin = 0, size_t c_end = ~size_t{0});
void Winograd23BandGemms(const KernelTable& t, const Conv2dShape& s, const Winograd23Layout& layout, size_t band,
                         const float* u, float* scratch, size_t xi_begin, size_t xi_end);
void Winograd23BandOutput(const KernelTable& t, const Winograd23Layout& layout, size_t band, const float* bias,
                          Activation act, float* y, float* scratch, size_t o_begin = 0, size_t o_end = ~size_t{0});

// U[ξ = 4i + j][o][c] = (G g[o][c] Gᵀ)[i][j] for w [out_c][in_c][3][3], in double precision.
// G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1].
void Winograd23TransformFilters(const float* w, size_t out_c, size_t in_c, float* u);

}  // namespace edgefold::kernels
