// Plain structs the runtime works on after the model module has read and checked the
// FlatBuffer. Nothing here includes schema or SIMD headers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "edgefold/types.h"
#include "kernels/kernel_params.h"

namespace edgefold::internal {

// Element type (schema DType, public edgefold::DType). Int8 and Int32 tensors keep `data` as
// the byte address; int8 ops reinterpret it.
using DType = ::edgefold::DType;

struct TensorInfo {
  const char* name = "";
  DType dtype = DType::kFloat32;
  // Quantization (schema QuantParams): real = (q − zero_points[i])·scales[i]; num_scales is 0
  // (none), 1 (per tensor) or shape[quant_axis] (per channel). Point into the model buffer.
  const float* scales = nullptr;
  const int32_t* zero_points = nullptr;
  uint32_t num_scales = 0;
  int32_t quant_axis = 0;
  int32_t shape[kMaxRank] = {};
  int rank = 0;
  size_t elems = 0;
  float* data = nullptr;  // into the arena, or into the model's weights (read-only)
  bool is_constant = false;
  int32_t producer = kNotProduced;  // op index that writes it, or kNotProduced / kGraphInput
  static constexpr int32_t kNotProduced = -1;
  static constexpr int32_t kGraphInput = -2;
};

// Op options, translated from the schema. One member of the union is live per OpKind.
// How a Conv's W is stored (schema WeightPacking).
enum class WeightPacking : uint8_t {
  kPlain = 0,
  kWinograd2x3 = 1,
  kWinograd4x3 = 2,
  kTransposed = 3
};

struct ConvOptions {
  int32_t kernel[2], strides[2], dilations[2], pads[4];  // pads: top, left, bottom, right
  int32_t group;
  kernels::Activation act;
  WeightPacking packing;
  kernels::Activation expand_act;  // inputs 4, 5: the fused pointwise expansion's activation
  bool x_hwc, y_hwc;               // X, Y channels innermost (the NHWC forms of Transposed packing)
};
struct PoolOptions {
  kernels::PoolKind kind;
  int32_t kernel[2], strides[2], dilations[2], pads[4];
  bool count_include_pad;
  bool ceil_mode;
};
struct PadOptions {
  int32_t pads[2 * kMaxRank];  // begin_0..begin_{r-1}, end_0..end_{r-1}
  int32_t num_pads;
  float value;
};
struct TransposeOptions {
  int32_t perm[kMaxRank];
  int32_t rank;
};
struct SliceOptions {
  int32_t starts[kMaxRank];
  int32_t steps[kMaxRank];
  int32_t rank;
};
struct ResizeOptions {
  kernels::ResizeMode mode;
  kernels::NearestRounding rounding;
  double scales[2], offsets[2];  // h, w
};
struct DepthSpaceOptions {  // DepthToSpace and SpaceToDepth
  int32_t blocksize;
  bool crd;  // DepthToSpace CRD (else DCR)
};
struct BatchNormOptions {
  float epsilon;
  float momentum;
  kernels::Activation act;
};

enum class RnnCell : uint8_t { kGru = 0, kLstm };  // schema RnnCell
enum class RnnDirection : uint8_t {
  kForward = 0,
  kReverse,
  kBidirectional
};  // schema RnnDirection
struct RnnOptions {
  RnnCell cell;
  RnnDirection direction;
  int32_t hidden_size;
  bool linear_before_reset;
  bool output_sequence;  // Y follows Y_h in the outputs
  bool output_cell;      // Y_c is the last output (LSTM)
};

union OpOptions {
  OpOptions() : pad() {}  // zero-initialized; ReadOptions fills the live member
  ConvOptions conv;       // Conv and ConvTranspose
  PoolOptions pool;
  PadOptions pad;
  TransposeOptions transpose;
  SliceOptions slice;
  ResizeOptions resize;
  DepthSpaceOptions depth_space;
  BatchNormOptions batchnorm;
  RnnOptions rnn;
  kernels::Activation act;  // Gemm, ChannelAffine, Activation
  struct {
    kernels::BinaryKind kind;
    kernels::Activation act;
  } binary;
  struct {
    int32_t axis;
  } axis;  // Concat, Softmax
  struct {
    int32_t axis;
    float epsilon;
  } layer_norm;
  struct {
    kernels::ReduceKind kind;
    int32_t axis;
    int32_t count;
  } reduce;
  kernels::PoolKind global_pool;
  struct {  // ConvInt8 (window as conv, act as the int8 clamp), GemmInt8, AddInt8
    int32_t kernel[2], strides[2], dilations[2], pads[4];
    int32_t group;
    int32_t act_min, act_max;
    int32_t multiplier_a, multiplier_b, shift;  // AddInt8; MulInt8: multiplier_a and shift
  } int8;
};

// Room for what an op's Prepare derives once (shapes, strides) so Eval only runs kernels.
constexpr size_t kPreparedBytes = 256;

struct OpDesc {
  OpKind kind = OpKind::kCount;
  const char* name = "";
  const int32_t* inputs = nullptr;  // tensor indices; -1 marks an absent optional input
  uint32_t num_inputs = 0;
  const int32_t* outputs = nullptr;
  uint32_t num_outputs = 0;
  // 0 or 1: one scratch; N > 1: N slices of scratch_bytes / N bytes, one per task (schema; the
  // op that reads it checks it). In the padding before `scratch`.
  uint16_t scratch_slices = 0;
  float* scratch = nullptr;  // planned arena scratch for this op
  size_t scratch_bytes = 0;
  OpOptions options;
  alignas(8) unsigned char prepared[kPreparedBytes];
};

}  // namespace edgefold::internal
