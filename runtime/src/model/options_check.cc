// CheckOptions: array lengths and enum ranges of each op's options table, one step per family
// of ops (windows, int8 arithmetic, layout, the rest).
#include <cmath>

#include "model/options_reader.h"
#include "model/vector_alignment.h"

namespace edgefold::internal {
namespace {

using IntVec = flatbuffers::Vector<int32_t>;

// Reports "op '<name>': <what>" and returns false.
struct Fail {
  ErrorReporter& errors;
  const char* name;
  bool operator()(const char* what) const {
    errors.Report("op '%s': %s", name, what);
    return false;
  }
};

bool HasLength(const IntVec* v, uint32_t n) { return v != nullptr && v->size() == n; }

bool AllPositive(const IntVec* v) {
  for (int32_t x : *v)
    if (x <= 0) return false;
  return true;
}

bool AllNonNegative(const IntVec* v) {
  for (int32_t x : *v)
    if (x < 0) return false;
  return true;
}

// Window ops share the same array contract: kernel/strides/dilations of 2, pads of 4.
bool CheckWindow(const IntVec* kernel, const IntVec* strides, const IntVec* dilations,
                 const IntVec* pads) {
  return HasLength(kernel, 2) && HasLength(strides, 2) && HasLength(dilations, 2) &&
         HasLength(pads, 4) && AllPositive(kernel) && AllPositive(strides) &&
         AllPositive(dilations) && AllNonNegative(pads);
}

bool CheckActivation(const fb::Activation* a) {
  return a == nullptr || static_cast<int>(a->kind()) <= static_cast<int>(fb::ActivationKind::Pow);
}

bool CheckClamp(int32_t lo, int32_t hi) { return -128 <= lo && lo <= hi && hi <= 127; }

// Conv, ConvTranspose, Pool and their int8 forms: the window arrays; global pools: the kind.
bool CheckWindowOp(const fb::Operator* op, const Fail& fail) {
  switch (op->type()) {
    case fb::OpType::Conv: {
      const auto* o = op->options_as_ConvOptions();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()) || o->group() < 1)
        return fail("conv kernel/strides/dilations need 2 positive values, pads 4, group >= 1");
      // The NHWC packings only on hosted builds (kernels/kernel_params.h, EDGEFOLD_NHWC).
      if (static_cast<int>(o->packing()) > (EDGEFOLD_NHWC ? 6 : 3))
        return fail("unknown weight packing");
      return (CheckActivation(o->activation()) && CheckActivation(o->expand_activation())) ||
             fail("unknown activation");
    }
    case fb::OpType::ConvInt8: {
      const auto* o = op->options_as_ConvInt8Options();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()) || o->group() < 1)
        return fail("conv kernel/strides/dilations need 2 positive values, pads 4, group >= 1");
      return CheckClamp(o->act_min(), o->act_max()) ||
             fail("act_min/act_max must satisfy -128 <= min <= max <= 127");
    }
    case fb::OpType::ConvTranspose: {
      const auto* o = op->options_as_ConvTransposeOptions();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()) || o->group() < 1)
        return fail(
            "conv transpose kernel/strides/dilations need 2 positive values, pads 4, group >= 1");
      return CheckActivation(o->activation()) || fail("unknown activation");
    }
    case fb::OpType::PoolInt8: {
      const auto* o = op->options_as_PoolInt8Options();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()))
        return fail("pool kernel/strides/dilations need 2 positive values, pads 4");
      return static_cast<int>(o->kind()) <= 1 || fail("unknown pool kind");
    }
    case fb::OpType::Pool: {
      const auto* o = op->options_as_PoolOptions();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()))
        return fail("pool kernel/strides/dilations need 2 positive values, pads 4");
      return static_cast<int>(o->kind()) <= 1 || fail("unknown pool kind");
    }
    case fb::OpType::GlobalPoolInt8:
      return static_cast<int>(op->options_as_GlobalPoolInt8Options()->kind()) <= 1 ||
             fail("unknown pool kind");
    case fb::OpType::GlobalPool:
      return static_cast<int>(op->options_as_GlobalPoolOptions()->kind()) <= 1 ||
             fail("unknown pool kind");
    default:
      return true;
  }
}

// GemmInt8, AddInt8, MulInt8: the requantization parameters and the output clamp.
bool CheckInt8Op(const fb::Operator* op, const Fail& fail) {
  switch (op->type()) {
    case fb::OpType::GemmInt8: {
      const auto* o = op->options_as_GemmInt8Options();
      return CheckClamp(o->act_min(), o->act_max()) ||
             fail("act_min/act_max must satisfy -128 <= min <= max <= 127");
    }
    case fb::OpType::AddInt8: {
      const auto* o = op->options_as_AddInt8Options();
      if (o->multiplier_a() < 0 || o->multiplier_b() < 0 || o->shift() < 1 || o->shift() > 62)
        return fail("AddInt8 multipliers must be >= 0 and shift in [1, 62]");
      return CheckClamp(o->act_min(), o->act_max()) ||
             fail("act_min/act_max must satisfy -128 <= min <= max <= 127");
    }
    case fb::OpType::MulInt8: {
      const auto* o = op->options_as_MulInt8Options();
      if (o->multiplier() < (int32_t{1} << 30) || o->shift() < -30 || o->shift() > 31)
        return fail("MulInt8 multiplier must be in [2^30, 2^31) and shift in [-30, 31]");
      return CheckClamp(o->act_min(), o->act_max()) ||
             fail("act_min/act_max must satisfy -128 <= min <= max <= 127");
    }
    default:
      return true;
  }
}

bool CheckResize(const fb::ResizeOptions* o, const Fail& fail) {
  if (static_cast<int>(o->mode()) > static_cast<int>(fb::ResizeMode::Linear))
    return fail("unknown resize mode");
  if (static_cast<int>(o->nearest_mode()) > static_cast<int>(fb::NearestMode::Ceil))
    return fail("unknown resize nearest_mode");
  if (o->scales() == nullptr || o->offsets() == nullptr || o->scales()->size() != 2 ||
      o->offsets()->size() != 2)
    return fail("resize needs 2 scales and 2 offsets (h, w)");
  if (!ElementsAligned(o->scales()) || !ElementsAligned(o->offsets()))
    return fail("resize scales and offsets are not 8-byte aligned in the model file");
  for (uint32_t i = 0; i < 2; ++i)
    if (!std::isfinite(o->scales()->Get(i)) || !std::isfinite(o->offsets()->Get(i)))
      return fail("resize scales and offsets must be finite");
  return true;
}

// Ops that move or select data: the axes, pads, starts and steps they carry.
bool CheckLayoutOp(const fb::Operator* op, const Fail& fail) {
  switch (op->type()) {
    case fb::OpType::Reduce: {
      const auto* o = op->options_as_ReduceOptions();
      if (static_cast<int>(o->kind()) > static_cast<int>(fb::ReduceKind::SumSquare))
        return fail("unknown reduce kind");
      return (o->axis() >= 0 && o->count() >= 1 && o->axis() + o->count() <= kMaxRank) ||
             fail("reduce axis/count out of range");
    }
    case fb::OpType::Pad: {
      const auto* o = op->options_as_PadOptions();
      if (o->pads() == nullptr || o->pads()->size() > 2 * kMaxRank || o->pads()->size() % 2 != 0 ||
          !AllNonNegative(o->pads()))
        return fail("pad needs an even number (at most 12) of non-negative pads");
      return true;
    }
    case fb::OpType::Transpose: {
      const auto* o = op->options_as_TransposeOptions();
      if (o->perm() == nullptr || o->perm()->size() > static_cast<uint32_t>(kMaxRank))
        return fail("transpose needs a permutation of at most 6 axes");
      return true;
    }
    case fb::OpType::Slice: {
      const auto* o = op->options_as_SliceOptions();
      if (o->starts() == nullptr || o->steps() == nullptr ||
          o->starts()->size() != o->steps()->size() ||
          o->starts()->size() > static_cast<uint32_t>(kMaxRank))
        return fail("slice needs starts and steps of the same length, at most 6");
      for (int32_t s : *o->steps())
        if (s == 0) return fail("slice step 0");
      return true;
    }
    case fb::OpType::Resize:
      return CheckResize(op->options_as_ResizeOptions(), fail);
    case fb::OpType::DepthToSpace:
      return (op->options_as_DepthToSpaceOptions()->blocksize() >= 1) ||
             fail("blocksize must be >= 1");
    case fb::OpType::SpaceToDepth:
      return (op->options_as_SpaceToDepthOptions()->blocksize() >= 1) ||
             fail("blocksize must be >= 1");
    default:
      return true;
  }
}

// The rest: enums and epsilons of LayerNorm and Rnn, the fused activation of the others.
bool CheckOtherOp(const fb::Operator* op, const Fail& fail) {
  switch (op->type()) {
    case fb::OpType::LayerNorm: {
      const float eps = op->options_as_LayerNormOptions()->epsilon();
      return (std::isfinite(eps) && eps >= 0.0f) ||
             fail("LayerNorm epsilon must be finite and >= 0");
    }
    case fb::OpType::Rnn: {
      const auto* o = op->options_as_RnnOptions();
      if (static_cast<int>(o->cell()) > static_cast<int>(fb::RnnCell::Lstm))
        return fail("unknown rnn cell");
      if (static_cast<int>(o->direction()) > static_cast<int>(fb::RnnDirection::Bidirectional))
        return fail("unknown rnn direction");
      if (o->hidden_size() < 1) return fail("rnn hidden_size must be >= 1");
      return (o->cell() == fb::RnnCell::Lstm || !o->output_cell()) ||
             fail("a GRU has no cell state output");
    }
    case fb::OpType::Binary: {
      const auto* o = op->options_as_BinaryOptions();
      if (static_cast<int>(o->kind()) > static_cast<int>(fb::BinaryKind::Max))
        return fail("unknown binary kind");
      return CheckActivation(o->activation()) || fail("unknown activation");
    }
    case fb::OpType::Gemm:
      return CheckActivation(op->options_as_GemmOptions()->activation()) ||
             fail("unknown activation");
    case fb::OpType::BatchNorm:
      return CheckActivation(op->options_as_BatchNormOptions()->activation()) ||
             fail("unknown activation");
    case fb::OpType::ChannelAffine:
      return CheckActivation(op->options_as_ChannelAffineOptions()->activation()) ||
             fail("unknown activation");
    case fb::OpType::Activation:
      return CheckActivation(op->options_as_ActivationOptions()->activation()) ||
             fail("unknown activation");
    default:
      return true;
  }
}

}  // namespace

bool CheckOptions(const fb::Operator* op, ErrorReporter& errors) {
  const Fail fail{errors, (op->name() != nullptr) ? op->name()->c_str() : ""};
  // Each step checks the ops of its family and accepts the others.
  return CheckWindowOp(op, fail) && CheckInt8Op(op, fail) && CheckLayoutOp(op, fail) &&
         CheckOtherOp(op, fail);
}

}  // namespace edgefold::internal
