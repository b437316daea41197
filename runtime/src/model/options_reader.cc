// ReadOptions: each op's FlatBuffers options table into the plain OpOptions union, one step per
// family of ops (CheckOptions, options_check.cc, accepted the table first).
#include <cstring>

#include "model/options_reader.h"

namespace edgefold::internal {
namespace {

using IntVec = flatbuffers::Vector<int32_t>;

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

// The NHWC forms of Transposed (TransposedNhwcOut/In/Nhwc): the packing, and the layouts apart
// (hosted builds only: EDGEFOLD_NHWC).
void ReadConvPacking(fb::WeightPacking p, ConvOptions* conv) {
  const int packing = static_cast<int>(p);
  conv->packing = static_cast<WeightPacking>(EDGEFOLD_NHWC && packing > 3 ? 3 : packing);
  if (!EDGEFOLD_NHWC) return;  // the layouts stay as ReadOp zeroed them; loads refuse packing > 3
  conv->x_hwc = packing >= 5;
  conv->y_hwc = packing == 4 || packing == 6;
}

// Conv, ConvTranspose, Pool and their int8 forms: the window arrays and their own fields.
void ReadWindowOp(const fb::Operator* op, OpOptions* out) {
  switch (op->type()) {
    case fb::OpType::Conv: {
      const auto* o = op->options_as_ConvOptions();
      CopyWindow(o->kernel(), o->strides(), o->dilations(), o->pads(), out->conv.kernel,
                 out->conv.strides, out->conv.dilations, out->conv.pads);
      out->conv.group = o->group();
      out->conv.act = ToActivation(o->activation());
      ReadConvPacking(o->packing(), &out->conv);
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
    default:
      break;
  }
}

// GemmInt8, AddInt8, MulInt8: requantization parameters and the output clamp.
void ReadInt8Op(const fb::Operator* op, OpOptions* out) {
  switch (op->type()) {
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
    default:
      break;
  }
}

// Ops that move or select data: axes, pads, starts and steps.
void ReadLayoutOp(const fb::Operator* op, OpOptions* out) {
  switch (op->type()) {
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
    default:
      break;
  }
}

// The rest: Rnn's fields, axes, epsilons and fused activations.
void ReadOtherOp(const fb::Operator* op, OpOptions* out) {
  switch (op->type()) {
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

}  // namespace

void ReadOptions(const fb::Operator* op, OpOptions* out) {
  std::memset(static_cast<void*>(out), 0, sizeof(*out));
  // Each step fills the ops of its family and leaves the others alone.
  ReadWindowOp(op, out);
  ReadInt8Op(op, out);
  ReadLayoutOp(op, out);
  ReadOtherOp(op, out);
}

}  // namespace edgefold::internal
