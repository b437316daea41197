// Convolution as a GEMM without im2col ("phase planes").
//
// The zero-padded input of one group is split into stride_h × stride_w phase planes: phase
// (a, b) holds padded rows a, a + sh, … and columns b, b + sw, …. For output (oy, ox), tap
// (ky, kx) reads padded pixel (oy·sh + ky·dh, ox·sw + kx·dw), which is pixel
//   (oy + ⌊ky·dh / sh⌋, ox + ⌊kx·dw / sw⌋)   of phase (ky·dh mod sh, kx·dw mod sw).
// So with outputs numbered j = oy·plane_w + ox, the im2col row of (channel c, ky, kx) is ONE
// contiguous run of a phase plane, starting at a fixed offset: the GEMM reads it in place
// through GemmParams::b_row_offsets. Columns with ox ≥ out_w are junk (they straddle two rows)
// and are dropped when the pitched result is compacted into y; when plane_w == out_w (1×k
// kernels, e.g. 1×1 stride 2) there is no junk and the GEMM writes y directly. Outputs at least
// kPhaseRowGemmMinWidth wide (a whole 16-float register per row: ResNet-8's 32- and 16-wide
// layers, the 112-wide stems of ImageNet networks) run one GEMM per output row instead,
// n = out_w, straight into y: no pitched copy to write, read back and compact (kernels/README.md
// has the measurement).
//
// Memory: the planes hold ≈ the padded input once, where im2col holds it kh·kw / (sh·sw) times.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/kernel_params.h"
#include "kernels/kernel_table.h"

namespace edgefold::kernels {

struct ConvPhaseLayout {
  size_t plane_h = 0, plane_w = 0;  // one phase plane
  size_t plane_floats = 0;          // plane_h · plane_w
  size_t channel_floats = 0;        // sh · sw · plane_floats: the phases of one input channel
  size_t gemm_n = 0;                // (out_h−1)·plane_w + out_w pitched output columns (rounded
                                    // up to 16 when there are junk columns)
  size_t planes_floats = 0;         // (in_c/group) · channel_floats + slack, multiple of 16
  size_t pitched_floats = 0;        // (out_c/group) · gemm_n when plane_w != out_w, else 0
  bool row_gemms = false;           // one GEMM per output row into y (no pitched buffer)
  size_t k = 0;                     // (in_c/group) · kh · kw B rows (uint32 offsets)
  size_t offsets_bytes = 0;         // k · 4, rounded up to 64
  size_t scratch_bytes = 0;         // planes, pitched output, offsets; SIZE_MAX when too big
  // Bit a·sw + b: some tap reads phase (a, b). A 1×1 stride-2 conv reads one phase of four:
  // the others are zeroed, not filled (a strided copy costs far more than a memset). All bits
  // when sh·sw > 64, and in layouts built by hand (Winograd's column planes).
  uint64_t phases_read = ~uint64_t{0};
};

// The layout of `s`; scratch_bytes is SIZE_MAX when a size overflows or an offset would not
// fit in 32 bits (the caller then uses im2col).
ConvPhaseLayout MakeConvPhaseLayout(const Conv2dShape& s);
constexpr size_t kPhaseRowGemmMinWidth = 16;

// The phase planes of one group (zero where the padded image lies outside the input) and the
// zeroed slack up to l.planes_floats. Reads plane_h, plane_w, plane_floats, channel_floats and
// planes_floats of `l` only, so other layouts of the same planes (Winograd's column planes:
// stride 1 × 2) use it too.
// Channels [c_begin, min(c_end, in_c/group)) and plane rows [row_begin, min(row_end, plane_h))
// only, so threads can split the fill either way; the range that ends at the last channel and
// row also zeroes the slack after them.
constexpr size_t kAllChannels = ~size_t{0};
void FillPhasePlanes(const Conv2dShape& s, const ConvPhaseLayout& l, const float* x_group,
                     float* planes, size_t c_begin = 0, size_t c_end = kAllChannels,
                     size_t row_begin = 0, size_t row_end = ~size_t{0});

// One group of one image: y_group[og × out_h·out_w] = act(W_g · conv-rows(x_group) + bias), using
// `scratch` (64-byte aligned, ≥ layout.scratch_bytes) for the planes, the pitched result and the
// offsets. The GEMM is the table's; everything else is data movement, the same on every ISA.
void Conv2dPhaseGemm(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& layout,
                     const float* x_group, const float* w_group, const float* bias, Activation act,
                     float* y_group, float* scratch);

// The same in two steps, so both can be split over threads: the planes and offsets of input
// channels [c_begin, c_end) into scratch, then the output channels [o_begin, o_end) of the group
// (rows of the GEMM).
void Conv2dPhaseFill(const Conv2dShape& s, const ConvPhaseLayout& layout, const float* x_group,
                     float* scratch, size_t c_begin = 0, size_t c_end = kAllChannels);
// Or every channel's plane rows [row_begin, row_end) (for a few channels over many pixels: 3
// input channels split over channels went 1 + 2); the range that starts at row 0 also writes
// the offsets.
void Conv2dPhaseFillRows(const Conv2dShape& s, const ConvPhaseLayout& layout, const float* x_group,
                         float* scratch, size_t row_begin, size_t row_end);
void Conv2dPhaseRows(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& layout,
                     const float* w_group, const float* bias, Activation act, float* y_group,
                     float* scratch, size_t o_begin, size_t o_end);

// The same GEMM split over pixels instead, for few output channels over many pixels: units
// [begin, end) of Conv2dPhasePixelUnits — output rows (row_gemms) or pitched columns (split in
// multiples of 64, a multiple of every register width, so the column tail and the bits stay
// where they are) — of every output channel; then, once all columns are done,
// Conv2dPhaseCompact moves output channels [o_begin, o_end) from the pitched buffer into y
// (nothing to do when the GEMM wrote y).
size_t Conv2dPhasePixelUnits(const Conv2dShape& s, const ConvPhaseLayout& layout);
void Conv2dPhasePixels(const KernelTable& t, const Conv2dShape& s, const ConvPhaseLayout& layout,
                       const float* w_group, const float* bias, Activation act, float* y_group,
                       float* scratch, size_t begin, size_t end);
void Conv2dPhaseCompact(const Conv2dShape& s, const ConvPhaseLayout& layout, float* y_group,
                        const float* scratch, size_t o_begin, size_t o_end);

}  // namespace edgefold::kernels
