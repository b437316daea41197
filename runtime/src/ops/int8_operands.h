// Checks shared by the int8 ops' Prepare: dtypes, per-tensor quantization and the
// requantization constants (docs/quantization.md).
#pragma once
#include <initializer_list>

#include "kernels/int8_params.h"
#include "ops/op_kernel.h"

namespace edgefold::internal {

inline int8_t* S8Data(const TensorInfo& t) { return reinterpret_cast<int8_t*>(t.data); }
inline const int32_t* S32Data(const TensorInfo& t) {
  return reinterpret_cast<const int32_t*>(t.data);
}

// An int8 activation with one scale and zero point.
inline Status CheckS8Activation(OpContext& ctx, const TensorInfo& t, const char* role) {
  if (t.dtype != DType::kInt8 || t.num_scales != 1 || t.is_constant)
    return ctx.Fail(Status::kInvalidModel,
                    "%s '%s' must be an int8 activation with one scale and zero point", role,
                    t.name);
  return Status::kOk;
}

// An elementwise int8 op's activations: input i named roles[i], and Y.
inline Status CheckS8Elementwise(OpContext& ctx, std::initializer_list<const char*> roles) {
  uint32_t i = 0;
  for (const char* role : roles)
    EDGEFOLD_RETURN_IF_ERROR(CheckS8Activation(ctx, ctx.input(i++), role));
  return CheckS8Activation(ctx, ctx.output(0), "Y");
}

// A copy op's (Reshape, Concat, Pad, Transpose, Slice) input x and output y: float32, or int8
// with one scale and zero point shared by both (bytes are copied, never requantized).
inline Status CheckCopyDtypes(OpContext& ctx, const TensorInfo& x, const TensorInfo& y) {
  if (x.dtype != y.dtype || (y.dtype != DType::kFloat32 && y.dtype != DType::kInt8))
    return ctx.Fail(Status::kInvalidModel,
                    "input '%s' is %s and output '%s' %s: a copy needs one dtype, float32 or int8",
                    x.name, DTypeName(x.dtype), y.name, DTypeName(y.dtype));
  if (y.dtype == DType::kInt8 &&
      (x.num_scales != 1 || y.num_scales != 1 || x.scales[0] != y.scales[0] ||
       x.zero_points[0] != y.zero_points[0]))
    return ctx.Fail(Status::kInvalidModel,
                    "int8 input '%s' (scale %g, zero point %d) must have the output's scale %g and "
                    "zero point %d",
                    x.name, x.num_scales == 1 ? double(x.scales[0]) : 0.0,
                    x.num_scales == 1 ? x.zero_points[0] : 0,
                    y.num_scales == 1 ? double(y.scales[0]) : 0.0,
                    y.num_scales == 1 ? y.zero_points[0] : 0);
  return Status::kOk;
}

inline Status CheckFloatTensor(OpContext& ctx, const TensorInfo& t, const char* role) {
  if (t.dtype != DType::kFloat32)
    return ctx.Fail(Status::kInvalidModel, "%s '%s' must be float32", role, t.name);
  return Status::kOk;
}

// Inputs first .. first+2 are B, M and shift: int32 constants of `channels` values each, with
// M ∈ [2^30, 2^31) and shift ∈ [−30, 31] (the range RequantizeS8 computes exactly).
inline Status CheckRequantOperands(OpContext& ctx, uint32_t first, size_t channels) {
  static const char* const kRole[3] = {"bias", "multiplier", "shift"};
  for (uint32_t i = 0; i < 3; ++i) {
    if (!ctx.has_input(first + i))
      return ctx.Fail(Status::kInvalidModel, "missing %s (input %u)", kRole[i],
                      static_cast<unsigned>(first + i));
    const TensorInfo& t = ctx.input(first + i);
    if (t.dtype != DType::kInt32 || !t.is_constant || t.elems != channels)
      return ctx.Fail(Status::kInvalidModel, "%s '%s' must be an int32 constant of %zu values",
                      kRole[i], t.name, channels);
  }
  const int32_t* m = S32Data(ctx.input(first + 1));
  const int32_t* s = S32Data(ctx.input(first + 2));
  for (size_t c = 0; c < channels; ++c) {
    if (m[c] < (int32_t{1} << 30) || s[c] < -30 || s[c] > 31)
      return ctx.Fail(
          Status::kInvalidModel,
          "channel %zu: multiplier %d outside [2^30, 2^31) or shift %d outside [-30, 31]", c,
          static_cast<int>(m[c]), static_cast<int>(s[c]));
  }
  return Status::kOk;
}

// The requantization half of a GemmS8Params for channels starting at `first_channel`.
inline void SetRequant(OpContext& ctx, uint32_t first, size_t first_channel, int32_t act_min,
                       int32_t act_max, kernels::GemmS8Params* p) {
  p->bias = S32Data(ctx.input(first)) + first_channel;
  p->multiplier = S32Data(ctx.input(first + 1)) + first_channel;
  p->shift = S32Data(ctx.input(first + 2)) + first_channel;
  p->y_zero_point = ctx.output(0).zero_points[0];
  p->act_min = act_min;
  p->act_max = act_max;
}

}  // namespace edgefold::internal
