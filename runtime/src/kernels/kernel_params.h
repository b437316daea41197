// Plain parameter structs shared by kernels, ops and the compiler. No schema, no SIMD.
#pragma once
#include <cstddef>
#include <cstdint>

// NHWC tensors (the compiler's TransposedNhwc* packings) exist on hosted builds only: Cortex-M firmwares
// compile their models with --no-transposed-weights, and their loads refuse NHWC (the flash of
// the reads and checks stays out of their budgets).
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define EDGEFOLD_NHWC 0
#else
#define EDGEFOLD_NHWC 1
#endif

namespace edgefold::kernels {

enum class ActKind : uint8_t {
  kNone = 0,
  kRelu,
  kClip,
  kLeakyRelu,
  kSigmoid,
  kHardSigmoid,
  kHardSwish,
  kSiLU,
  kTanh,
  kExp,
  kLog,
  kSqrt,
  kReciprocal,
  kNeg,
  kAbs,
  kErf,
  kGelu,
  kSquare,
  kPow
};  // append only: values are the schema's ActivationKind

// Activation applied as the last step of a kernel (fused epilogue).
//   Relu: max(x,0)   Clip: min(max(x,alpha),beta)   LeakyRelu: x<0 ? alpha·x : x
//   Sigmoid: 1/(1+e^-x)   HardSigmoid: max(0,min(1,alpha·x+beta))   HardSwish: x·max(0,min(1,x/6+1/2))
//   SiLU (Swish): x·sigmoid(x) = x/(1+e^-x)
// Unary math (ONNX semantics: Log/Sqrt of x < 0 and Pow of x < 0 with a non-integer exponent are NaN):
//   Tanh, Exp: e^x, Log: ln x, Sqrt, Reciprocal: 1/x, Neg: −x, Abs: |x|, Erf,
//   Gelu: x·½·(1 + erf(x/√2)) (the erf form),  Square: x·x,  Pow: x^alpha (alpha a constant)
struct Activation {
  ActKind kind = ActKind::kNone;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// A strided copy, the one data-movement loop of Pad, Transpose, Slice and their backward
// passes: for every index (i_0, …, i_{rank−1}) < dims,
//   dst[Σ_d i_d·dst_step[d]]  =  (accumulate ? dst[…] : 0) + src[Σ_d i_d·src_step[d]]
// Steps are in elements and may be negative (a reversed Slice); callers offset src and dst to
// the first element. rank 0 copies one element.
constexpr int kStridedCopyMaxRank = 6;
struct StridedCopyParams {
  int rank = 0;
  size_t dims[kStridedCopyMaxRank] = {};
  ptrdiff_t src_step[kStridedCopyMaxRank] = {};
  ptrdiff_t dst_step[kStridedCopyMaxRank] = {};
  bool accumulate = false;
};

// A conv of one image, group 1, whose weights are stored transposed, wt[in_c][kh][kw][out_c]
// (the compiler's WeightPacking Transposed: pointwise convs on planes of few pixels, stride-2
// convs of small networks), reading an input plane that already holds its padding:
//   y[o][oh][ow] = act(bias[o] + Σ_{c,r,t} wt[c][r][t][o]·x[c][oh·sh + r·dh][ow·sw + t·dw])
// for o ∈ [o_begin, o_end), x [in_c][x_h][x_w], y [out_c][out_h][out_w] dense; bias may be
// nullptr; stride_w 1 or 2. A pointwise conv is a 1 × pixels plane. Output channels go in the
// lanes (an output register is one pixel of W channels), so narrow planes waste no lanes.
// Channels innermost (the compiler's NHWC tensors): x_hwc reads x as
// [x_h][x_w][in_c] (pointwise convs only in the SIMD tables), y_hwc writes y as
// [out_h][out_w][out_c] (each register stored whole, no transposition).
struct ConvKmParams {
  size_t in_c = 0, out_c = 0;
  size_t kh = 1, kw = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  size_t x_h = 0, x_w = 0, out_h = 0, out_w = 0;
  size_t o_begin = 0, o_end = 0;
  const float* bias = nullptr;
  Activation act;
  bool x_hwc = false, y_hwc = false;
};

// C[m×n] = act(A[m×k] · B[k×n] + bias)   (row-major, leading dimensions in elements)
// bias: nullptr, or m values (bias_per_row) or n values; accumulate: C += A·B first.
// b_row_offsets: nullptr (row q of B starts at b + q·ldb), or k offsets: row q starts at
// b + b_row_offsets[q] (ldb unused). Lets a conv read each tap's B row as a shifted view of
// its input instead of an im2col copy (kernels/conv/conv_phase.h).
struct GemmBlocking;  // kernels/cpu_caches.h

struct GemmParams {
  size_t m = 0, n = 0, k = 0;
  size_t lda = 0, ldb = 0, ldc = 0;
  const uint32_t* b_row_offsets = nullptr;
  bool prefetch_a =
      false;  // A is used for few columns (Winograd's 16 filter matrices): fetch ahead
  const float* bias = nullptr;
  bool bias_per_row = false;
  bool accumulate = false;
  Activation act;
  const GemmBlocking* blocking = nullptr;  // nullptr: this core's (GemmBlockingFor(HostCaches()))
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
  size_t pad_top = 0, pad_left = 0;  // bottom/right padding is implied by out_h/out_w
  size_t group = 1;
  // Floats from one channel's plane to the next in x and y; 0 = in_h·in_w / out_h·out_w (dense).
  // Only the float depthwise kernels read them (a band of rows of a larger plane, ops/conv.cc).
  size_t x_plane = 0, y_plane = 0;
};

// A depthwise conv (group == in_c == out_c) of one image with channels innermost:
//   y[oh][ow][c] = act(bias[c] + Σ_{r,t} wt[r][t][c]·x[oh·sh − pt + r·dh][ow·sw − pl + t·dw][c])
// for c ∈ [c_begin, c_end) (taps outside the image skipped, the sum from the bias in (r, t)
// order), x [in_h][in_w][in_c], y [out_h][out_w][out_c], wt [kh][kw][c] (the compiler's
// Transposed packing of a depthwise conv); bias may be nullptr.
struct DepthwiseHwcParams {
  Conv2dShape s;  // x_plane, y_plane unused
  size_t c_begin = 0, c_end = 0;
  const float* bias = nullptr;
  Activation act;
};

inline size_t ConvXPlane(const Conv2dShape& s) {
  return s.x_plane != 0 ? s.x_plane : s.in_h * s.in_w;
}
inline size_t ConvYPlane(const Conv2dShape& s) {
  return s.y_plane != 0 ? s.y_plane : s.out_h * s.out_w;
}

// One band of a Winograd convolution (kernels/conv/conv_winograd.h), F(2×2, 3×3) or F(4×4, 3×3):
// tile rows [row0, row0 + rows) of tiles_w output tiles each. Tile t = (ty − row0)·tiles_w + tx
// of matrix ξ ∈ [0, α²) (α = 4 or 6), row r (a channel) lives at v[ξ·v_stride + r·ld + t]
// (m[ξ·m_stride + …]).
struct WinogradGeometry {
  size_t tiles_w = 0, row0 = 0, rows = 0;
  // The input transform's whole-register stores run up to 15 floats past a tile row's end: into
  // the next row or channel, which it writes after, or past the last channel into the ξ skew. So
  // ld ≥ rows·tiles_w when one call transforms every channel, + 15 when threads split them.
  size_t ld = 0;
  // ξ strides: in_c·ld (out_c·ld) plus one cache line, so the α² streams of a transform do not
  // all map to the same L1 set (with ld·channels a multiple of 4 KiB they would).
  size_t v_stride = 0, m_stride = 0;
  // Input side: per channel, the padded input's columns by phase modulo the tile size (even
  // then odd for F(2,3); 0, 1, 2, 3 mod 4 for F(4,3)), each plane_rows × plane_w
  // (plane_w = tiles_w + 1), padded row 0 = input row −pad_top.
  size_t in_c = 0, plane_w = 0, plane_rows = 0, channel_floats = 0;
  // Output side.
  size_t out_c = 0, out_h = 0, out_w = 0;
};

enum class PoolKind : uint8_t { kMax = 0, kAverage };

// Reduction of x viewed as [outer, len, inner] along the middle axis (ops/reduce.cc):
//   Mean: Σ/len   Sum: Σ   Max: max (NaN propagates)   SumSquare: Σ x²
// len = 0 gives the empty reduction's identity: 0, −∞ (Max) and NaN (Mean, 0/0).
enum class ReduceKind : uint8_t {
  kMean = 0,
  kSum,
  kMax,
  kSumSquare
};  // append only: schema's ReduceKind

// 2-D pooling over `planes` independent (n,c) planes of in_h×in_w → out_h×out_w.
struct Pool2dParams {
  PoolKind kind = PoolKind::kMax;
  size_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  size_t kh = 1, kw = 1;
  size_t stride_h = 1, stride_w = 1;
  size_t dilation_h = 1, dilation_w = 1;
  size_t pad_top = 0, pad_left = 0;
  bool count_include_pad = false;  // average: divide by kh·kw instead of the in-bounds count
};

// An op's 2-D window (kernel, strides, dilations: [h, w]; pads: [top, left, bottom, right]) into
// a kernel's params (Conv2dShape, Pool2dParams): the one place that order is spelled out.
template <class Params, class Int>
void SetWindow2d(const Int* kernel, const Int* strides, const Int* dilations, const Int* pads,
                 Params* p) {
  p->kh = static_cast<size_t>(kernel[0]);
  p->kw = static_cast<size_t>(kernel[1]);
  p->stride_h = static_cast<size_t>(strides[0]);
  p->stride_w = static_cast<size_t>(strides[1]);
  p->dilation_h = static_cast<size_t>(dilations[0]);
  p->dilation_w = static_cast<size_t>(dilations[1]);
  p->pad_top = static_cast<size_t>(pads[0]);
  p->pad_left = static_cast<size_t>(pads[1]);
}

// Resize of `planes` planes in_h×in_w → out_h×out_w (ops/resize.cc). Per axis, output index i
// reads source coordinate s = i·scale + offset (kernels/resize_coords.h):
//   nearest: x[clamp(round(s), 0, in − 1)], round as `rounding` says;
//   linear:  s clamped to [0, in − 1], x[⌊s⌋]·(1 − f) + x[⌊s⌋ + 1]·f with f = s − ⌊s⌋, per axis.
// Double coordinates so that ties (s = k + ½) and integers fall where ONNX's reference puts them.
enum class ResizeMode : uint8_t { kNearest = 0, kLinear };
enum class NearestRounding : uint8_t { kRoundPreferFloor = 0, kRoundPreferCeil, kFloor, kCeil };
struct ResizeAxis {
  size_t in = 1, out = 1;
  double scale = 1.0, offset = 0.0;
  // k > 0 when index i reads ⌊i/k⌋ for every i (nearest) or the axis is the fixed 2× half-pixel
  // blend (linear, k = 2): the fast paths. Set by the op's Prepare (ResizeIntegerFactor).
  size_t factor = 0;
};
struct ResizeParams {
  ResizeMode mode = ResizeMode::kNearest;
  NearestRounding rounding = NearestRounding::kRoundPreferFloor;
  ResizeAxis h, w;
};

// Min/Max propagate NaN (numpy's minimum/maximum, ONNX Min/Max).
enum class BinaryKind : uint8_t {
  kAdd = 0,
  kSub,
  kMul,
  kDiv,
  kMin,
  kMax
};  // append only: schema's BinaryKind

// How the second operand of a binary kernel is read over its n outputs.
enum class BroadcastMode : uint8_t {
  kElementwise = 0,  // y[i] = a[i] op b[i]
  kScalarB,          // y[i] = a[i] op b[0]
  kScalarA,          // y[i] = a[0] op b[i]
};

}  // namespace edgefold::kernels
