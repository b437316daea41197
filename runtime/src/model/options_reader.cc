#include "model/options_reader.h"

#include <cmath>
#include <cstring>

#include "model/vector_alignment.h"

namespace edgefold::internal {
namespace {

using IntVec = flatbuffers::Vector<int32_t>;

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

kernels::Activation ToActivation(const fb::Activation* a) {
  kernels::Activation act;
  if (a != nullptr) {
    act.kind = static_cast<kernels::ActKind>(a->kind());
    act.alpha = a->alpha();
    act.beta = a->beta();
  }
  return act;
}

void CopyWindow(const IntVec* kernel, const IntVec* strides, const IntVec* dilations,
                const IntVec* pads, int32_t* k, int32_t* s, int32_t* d, int32_t* p) {
  for (int i = 0; i < 2; ++i) {
    k[i] = kernel->Get(i);
    s[i] = strides->Get(i);
    d[i] = dilations->Get(i);
  }
  for (int i = 0; i < 4; ++i) p[i] = pads->Get(i);
}

bool CheckClamp(int32_t lo, int32_t hi) { return -128 <= lo && lo <= hi && hi <= 127; }

}  // namespace

bool CheckOptions(const fb::Operator* op, ErrorReporter& errors) {
  const char* name = (op->name() != nullptr) ? op->name()->c_str() : "";
  auto fail = [&](const char* what) {
    errors.Report("op '%s': %s", name, what);
    return false;
  };
  switch (op->type()) {
    case fb::OpType::Conv: {
      const auto* o = op->options_as_ConvOptions();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()) || o->group() < 1)
        return fail("conv kernel/strides/dilations need 2 positive values, pads 4, group >= 1");
      if (static_cast<int>(o->packing()) > 2) return fail("unknown weight packing");
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
    case fb::OpType::PoolInt8: {
      const auto* o = op->options_as_PoolInt8Options();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()))
        return fail("pool kernel/strides/dilations need 2 positive values, pads 4");
      return static_cast<int>(o->kind()) <= 1 || fail("unknown pool kind");
    }
    case fb::OpType::GlobalPoolInt8:
      return static_cast<int>(op->options_as_GlobalPoolInt8Options()->kind()) <= 1 ||
             fail("unknown pool kind");
    case fb::OpType::LayerNorm: {
      const float eps = op->options_as_LayerNormOptions()->epsilon();
      return (std::isfinite(eps) && eps >= 0.0f) ||
             fail("LayerNorm epsilon must be finite and >= 0");
    }
    case fb::OpType::ConvTranspose: {
      const auto* o = op->options_as_ConvTransposeOptions();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()) || o->group() < 1)
        return fail(
            "conv transpose kernel/strides/dilations need 2 positive values, pads 4, group >= 1");
      return CheckActivation(o->activation()) || fail("unknown activation");
    }
    case fb::OpType::Pool: {
      const auto* o = op->options_as_PoolOptions();
      if (!CheckWindow(o->kernel(), o->strides(), o->dilations(), o->pads()))
        return fail("pool kernel/strides/dilations need 2 positive values, pads 4");
      return static_cast<int>(o->kind()) <= 1 || fail("unknown pool kind");
    }
    case fb::OpType::GlobalPool:
      return static_cast<int>(op->options_as_GlobalPoolOptions()->kind()) <= 1 ||
             fail("unknown pool kind");
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
    case fb::OpType::Resize: {
      const auto* o = op->options_as_ResizeOptions();
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
    case fb::OpType::DepthToSpace:
      return (op->options_as_DepthToSpaceOptions()->blocksize() >= 1) ||
             fail("blocksize must be >= 1");
    case fb::OpType::SpaceToDepth:
      return (op->options_as_SpaceToDepthOptions()->blocksize() >= 1) ||
             fail("blocksize must be >= 1");
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

void ReadOptions(const fb::Operator* op, OpOptions* out) {
  std::memset(static_cast<void*>(out), 0, sizeof(*out));
  switch (op->type()) {
    case fb::OpType::Conv: {
      const auto* o = op->options_as_ConvOptions();
      CopyWindow(o->kernel(), o->strides(), o->dilations(), o->pads(), out->conv.kernel,
                 out->conv.strides, out->conv.dilations, out->conv.pads);
      out->conv.group = o->group();
      out->conv.act = ToActivation(o->activation());
      out->conv.packing = static_cast<WeightPacking>(o->packing());
      out->conv.expand_act = ToActivation(o->expand_activation());
      break;
    }
    case fb::OpType::ConvTranspose: {  // same window fields as Conv; packing is always the GEMM's A
      const auto* o = op->options_as_ConvTransposeOptions();
      CopyWindow(o->kernel(), o->strides(), o->dilations(), o->pads(), out->conv.kernel,
                 out->conv.strides, out->conv.dilations, out->conv.pads);
      out->conv.group = o->group();
      out->conv.act = ToActivation(o->activation());
      out->conv.packing = WeightPacking::kPlain;
      break;
    }
    case fb::OpType::Pool: {
      const auto* o = op->options_as_PoolOptions();
      CopyWindow(o->kernel(), o->strides(), o->dilations(), o->pads(), out->pool.kernel,
                 out->pool.strides, out->pool.dilations, out->pool.pads);
      out->pool.kind = static_cast<kernels::PoolKind>(o->kind());
      out->pool.count_include_pad = o->count_include_pad();
      out->pool.ceil_mode = o->ceil_mode();
      break;
    }
    case fb::OpType::ConvInt8: {
      const auto* o = op->options_as_ConvInt8Options();
      CopyWindow(o->kernel(), o->strides(), o->dilations(), o->pads(), out->int8.kernel,
                 out->int8.strides, out->int8.dilations, out->int8.pads);
      out->int8.group = o->group();
      out->int8.act_min = o->act_min();
      out->int8.act_max = o->act_max();
      break;
    }
    case fb::OpType::GemmInt8:
      out->int8.act_min = op->options_as_GemmInt8Options()->act_min();
      out->int8.act_max = op->options_as_GemmInt8Options()->act_max();
      break;
    case fb::OpType::AddInt8: {
      const auto* o = op->options_as_AddInt8Options();
      out->int8.multiplier_a = o->multiplier_a();
      out->int8.multiplier_b = o->multiplier_b();
      out->int8.shift = o->shift();
      out->int8.act_min = o->act_min();
      out->int8.act_max = o->act_max();
      break;
    }
    case fb::OpType::MulInt8: {
      const auto* o = op->options_as_MulInt8Options();
      out->int8.multiplier_a = o->multiplier();
      out->int8.shift = o->shift();
      out->int8.act_min = o->act_min();
      out->int8.act_max = o->act_max();
      break;
    }
    case fb::OpType::PoolInt8: {
      const auto* o = op->options_as_PoolInt8Options();
      CopyWindow(o->kernel(), o->strides(), o->dilations(), o->pads(), out->pool.kernel,
                 out->pool.strides, out->pool.dilations, out->pool.pads);
      out->pool.kind = static_cast<kernels::PoolKind>(o->kind());
      out->pool.count_include_pad = o->count_include_pad();
      break;
    }
    case fb::OpType::GlobalPoolInt8:
      out->global_pool =
          static_cast<kernels::PoolKind>(op->options_as_GlobalPoolInt8Options()->kind());
      break;
    case fb::OpType::GlobalPool:
      out->global_pool = static_cast<kernels::PoolKind>(op->options_as_GlobalPoolOptions()->kind());
      break;
    case fb::OpType::Reduce: {
      const auto* o = op->options_as_ReduceOptions();
      out->reduce.kind = static_cast<kernels::ReduceKind>(o->kind());
      out->reduce.axis = o->axis();
      out->reduce.count = o->count();
      break;
    }
    case fb::OpType::Pad: {
      const auto* o = op->options_as_PadOptions();
      out->pad.num_pads = static_cast<int32_t>(o->pads()->size());
      for (int32_t i = 0; i < out->pad.num_pads; ++i) out->pad.pads[i] = o->pads()->Get(i);
      out->pad.value = o->value();
      break;
    }
    case fb::OpType::Transpose: {
      const auto* o = op->options_as_TransposeOptions();
      out->transpose.rank = static_cast<int32_t>(o->perm()->size());
      for (int32_t i = 0; i < out->transpose.rank; ++i) out->transpose.perm[i] = o->perm()->Get(i);
      break;
    }
    case fb::OpType::Rnn: {
      const auto* o = op->options_as_RnnOptions();
      out->rnn.cell = static_cast<RnnCell>(o->cell());
      out->rnn.direction = static_cast<RnnDirection>(o->direction());
      out->rnn.hidden_size = o->hidden_size();
      out->rnn.linear_before_reset = o->linear_before_reset();
      out->rnn.output_sequence = o->output_sequence();
      out->rnn.output_cell = o->output_cell();
      break;
    }
    case fb::OpType::Slice: {
      const auto* o = op->options_as_SliceOptions();
      out->slice.rank = static_cast<int32_t>(o->starts()->size());
      for (int32_t i = 0; i < out->slice.rank; ++i) {
        out->slice.starts[i] = o->starts()->Get(i);
        out->slice.steps[i] = o->steps()->Get(i);
      }
      break;
    }
    case fb::OpType::Resize: {
      const auto* o = op->options_as_ResizeOptions();
      out->resize.mode = static_cast<kernels::ResizeMode>(o->mode());
      out->resize.rounding = static_cast<kernels::NearestRounding>(o->nearest_mode());
      for (uint32_t i = 0; i < 2; ++i) {
        out->resize.scales[i] = o->scales()->Get(i);
        out->resize.offsets[i] = o->offsets()->Get(i);
      }
      break;
    }
    case fb::OpType::DepthToSpace:
      out->depth_space.blocksize = op->options_as_DepthToSpaceOptions()->blocksize();
      out->depth_space.crd = op->options_as_DepthToSpaceOptions()->crd();
      break;
    case fb::OpType::SpaceToDepth:
      out->depth_space.blocksize = op->options_as_SpaceToDepthOptions()->blocksize();
      break;
    case fb::OpType::Binary: {
      const auto* o = op->options_as_BinaryOptions();
      out->binary.kind = static_cast<kernels::BinaryKind>(o->kind());
      out->binary.act = ToActivation(o->activation());
      break;
    }
    case fb::OpType::BatchNorm: {
      const auto* o = op->options_as_BatchNormOptions();
      out->batchnorm.epsilon = o->epsilon();
      out->batchnorm.momentum = o->momentum();
      out->batchnorm.act = ToActivation(o->activation());
      break;
    }
    case fb::OpType::Gemm:
      out->act = ToActivation(op->options_as_GemmOptions()->activation());
      break;
    case fb::OpType::ChannelAffine:
      out->act = ToActivation(op->options_as_ChannelAffineOptions()->activation());
      break;
    case fb::OpType::Activation:
      out->act = ToActivation(op->options_as_ActivationOptions()->activation());
      break;
    case fb::OpType::Concat:
      out->axis.axis = op->options_as_ConcatOptions()->axis();
      break;
    case fb::OpType::Softmax:
      out->axis.axis = op->options_as_SoftmaxOptions()->axis();
      break;
    case fb::OpType::LayerNorm:
      out->layer_norm.axis = op->options_as_LayerNormOptions()->axis();
      out->layer_norm.epsilon = op->options_as_LayerNormOptions()->epsilon();
      break;
    default:
      break;
  }
}

}  // namespace edgefold::internal
