// ConvTranspose (the adjoint of a Conv with the same window), described by that Conv's shape
// `s`: the ConvTranspose's OUTPUT is the conv's input (s.in_c channels, s.in_h × s.in_w) and its
// input is the conv's output (s.out_c channels, s.out_h × s.out_w). So for each group g
//   y_g = col2im(A_g · x_g),  A_g = W_gᵀ  [(in_c/g)·kh·kw × out_c/g],  x_g [out_c/g × out_h·out_w]
// i.e. y[oc, iy·sh − pt + ky·dh, ix·sw − pl + kx·dw] += w[ic, oc, ky, kx]·x[ic, iy, ix],
// dropping positions outside y. Rows and columns of y that no tap reaches (output_padding)
// keep their bias. The compiler stores W packed as A: [group][in_c/g][kh][kw][out_c/g] (the
// ConvTranspose's own channel counts: [group][Cout/g][kh][kw][Cin/g]).
#pragma once
#include <cstddef>

#include "kernels/conv/conv_scratch.h"
#include "kernels/kernel_params.h"
#include "kernels/kernel_table.h"

namespace edgefold::kernels {

// 1×1, stride 1, no crop, same size: A_g · x_g is already y_g (no scatter, no scratch).
inline bool ConvTransposeIsPointwise(const Conv2dShape& s) { return ConvIsPointwise(s); }

// Scratch of the GEMM path: A_g · x_g for one group, [(in_c/g)·kh·kw × out_h·out_w] floats,
// the size of the adjoint conv's im2col buffer (saturating).
inline size_t ConvTransposeScratchBytes(const Conv2dShape& s) {
  return ConvTransposeIsPointwise(s) ? 0 : ConvIm2colScratchBytes(s);
}

// One image through the table's GEMM and col2im: y = act(bias + Σ_g col2im(A_g · x_g)).
// x: [s.out_c, s.out_h, s.out_w]; y: [s.in_c, s.in_h, s.in_w]; bias: s.in_c values or nullptr;
// scratch: ConvTransposeScratchBytes(s) bytes, 64-byte aligned.
void ConvTranspose2dGemm(const KernelTable& t, const Conv2dShape& s, const float* x,
                         const float* w_packed, const float* bias, Activation act, float* y,
                         float* scratch);

}  // namespace edgefold::kernels
