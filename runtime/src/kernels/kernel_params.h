// Plain parameter structs shared by kernels, ops and the compiler. No schema, no SIMD.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgefold::kernels {

enum class ActKind : uint8_t { kNone = 0, kRelu, kClip, kLeakyRelu, kSigmoid, kHardSigmoid, kHardSwish,
                              kSiLU };  // append only: values are the schema's ActivationKind

// Activation applied as the last step of a kernel (fused epilogue).
//   Relu: max(x,0)   Clip: min(max(x,alpha),beta)   LeakyRelu: x<0 ? alpha·x : x
//   Sigmoid: 1/(1+e^-x)   HardSigmoid: max(0,min(1,alpha·x+beta))   HardSwish: x·max(0,min(1,x/6+1/2))
//   SiLU (Swish): x·sigmoid(x) = x/(1+e^-x)
struct Activation {
  ActKind kind = ActKind::kNone;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// C[m×n] = act(A[m×k] · B[k×n] + bias)   (row-major, leading dimensions in elements)
// bias: nullptr, or m values (bias_per_row) or n values; accumulate: C += A·B first.
// b_row_offsets: nullptr (row q of B starts at b + q·ldb), or k offsets: row q starts at
// b + b_row_offsets[q] (ldb unused). Lets a conv read each tap's B row as a shifted view of
// its input instead of an im2col copy (kernels/conv_phase.h).
struct GemmParams {
  size_t m = 0, n = 0, k = 0;
  size_t lda = 0, ldb = 0, ldc = 0;
  const uint32_t* b_row_offsets = nullptr;
  bool prefetch_a = false;   // A is used for few columns (Winograd's 16 filter matrices): fetch ahead
  const float* bias = nullptr;
  bool bias_per_row = false;
  bool accumulate = false;
  Activation act;
};

// Start of row q of GEMM operand B (see GemmParams::b_row_offsets).
inline const float* GemmBRow(const GemmParams& p, const float* b, size_t q) {
  return p.b_row_offsets != nullptr ? b + p.b_row_offsets[q] : b + q * p.ldb;
}

// One 2-D convolution (1-D convs use in_h = out_h = kh = 1). NCHW, weights [out_c, in_c/group, kh, kw].
struct Conv2dShape {
  size_t in_c = 0, in_h = 0, in_w = 0;
  size_t out_c = 0, out_h = 0, out_w = 0;
  size_t kh = 1, kw = 1;
  size_t stride_h = 1, stride_w = 1;
  size_t dilation_h = 1, dilation_w = 1;
  size_t pad_top = 0, pad_left = 0;   // bottom/right padding is implied by out_h/out_w
  size_t group = 1;
};

// One band of a Winograd F(2×2, 3×3) convolution (kernels/conv_winograd.h): tile rows
// [row0, row0 + rows) of tiles_w 2×2 output tiles each. Tile t = (ty − row0)·tiles_w + tx of
// matrix ξ ∈ [0,16), row r (a channel) lives at v[ξ·v_stride + r·ld + t] (m[ξ·m_stride + …]).
struct Winograd23Geometry {
  size_t tiles_w = 0, row0 = 0, rows = 0;
  size_t ld = 0;               // ≥ rows·tiles_w + 15: whole-register stores never reach the next row
  // ξ strides: in_c·ld (out_c·ld) plus one cache line, so the 16 streams of a transform do not
  // all map to the same L1 set (with ld·channels a multiple of 4 KiB they would).
  size_t v_stride = 0, m_stride = 0;
  // Input side: per channel, the padded input's even columns then its odd columns, each
  // plane_rows × plane_w (plane_w = tiles_w + 1), padded row 0 = input row −pad_top.
  size_t in_c = 0, plane_w = 0, plane_rows = 0, channel_floats = 0;
  // Output side.
  size_t out_c = 0, out_h = 0, out_w = 0;
};

enum class PoolKind : uint8_t { kMax = 0, kAverage };

// 2-D pooling over `planes` independent (n,c) planes of in_h×in_w → out_h×out_w.
struct Pool2dParams {
  PoolKind kind = PoolKind::kMax;
  size_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  size_t kh = 1, kw = 1;
  size_t stride_h = 1, stride_w = 1;
  size_t dilation_h = 1, dilation_w = 1;
  size_t pad_top = 0, pad_left = 0;
  bool count_include_pad = false;   // average: divide by kh·kw instead of the in-bounds count
};

enum class BinaryKind : uint8_t { kAdd = 0, kSub, kMul, kDiv };

// How the second operand of a binary kernel is read over its n outputs.
enum class BroadcastMode : uint8_t {
  kElementwise = 0,  // y[i] = a[i] op b[i]
  kScalarB,          // y[i] = a[i] op b[0]
  kScalarA,          // y[i] = a[0] op b[i]
};

}  // namespace edgefold::kernels
