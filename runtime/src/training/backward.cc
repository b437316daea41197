#include "training/backward.h"

#include "training/activation_grad.h"
#include "training/backward_ops.h"

namespace edgefold::internal {
namespace {

const kernels::Activation* FusedActivation(const OpDesc& op) {
  switch (op.kind) {
    case OpKind::kConv:
      return &op.options.conv.act;
    case OpKind::kGemm:
    case OpKind::kChannelAffine:
      return &op.options.act;
    case OpKind::kBatchNorm:
      return &op.options.batchnorm.act;
    case OpKind::kBinary:
      return &op.options.binary.act;
    default:
      return nullptr;
  }
}

}  // namespace

const char* BackwardUnsupportedReason(const OpDesc& op, const GraphView& g) {
  const kernels::Activation* act = FusedActivation(op);
  if (act != nullptr && op.kind != OpKind::kBatchNorm && !GradFromOutputSupported(act->kind))
    return "a fused HardSwish, SiLU, Gelu, Abs, Erf, Square or Pow has no gradient from its "
           "output; "
           "compile with --train (no fusion)";
  if (op.kind == OpKind::kConv && op.options.conv.packing != WeightPacking::kPlain)
    return "Winograd-packed conv weights cannot be trained; compile with --train (plain weights)";
  if (op.kind == OpKind::kConv && op.num_inputs > 3 && op.inputs[3] >= 0)
    return "a conv with a fused channel scale (squeeze-and-excitation Mul) cannot be trained; "
           "compile with --train (no fusion)";
  if (op.kind == OpKind::kConv && op.num_inputs > 4 && op.inputs[4] >= 0)
    return "a depthwise conv with a fused pointwise expansion cannot be trained (the expanded "
           "tensor is "
           "never stored); compile with --train (no fusion)";
  switch (op.kind) {
    case OpKind::kMatMul:
      return "MatMul of two activations has no backward yet";
    case OpKind::kResize:
      return "Resize has no backward yet";
    case OpKind::kConvTranspose:
      return "ConvTranspose has no backward yet";
    case OpKind::kLayerNorm:
      return "LayerNorm has no backward yet";
    case OpKind::kRnn:
      return op.options.rnn.cell == RnnCell::kLstm ? "LSTM has no backward yet"
                                                   : "GRU has no backward yet";
    case OpKind::kExpand:
      return "Expand has no backward yet";
    case OpKind::kReduce:
      return "Reduce has no backward yet";
    case OpKind::kPRelu: {
      const TensorInfo x = g.tensor(static_cast<size_t>(op.inputs[0]));
      const TensorInfo slope = g.tensor(static_cast<size_t>(op.inputs[1]));
      const bool per_channel = x.rank >= 2 && slope.elems == static_cast<size_t>(x.shape[1]);
      return (slope.elems == 1 || per_channel)
                 ? nullptr
                 : "PRelu backward needs a shared or per-channel slope";
    }
    case OpKind::kConcat:
    case OpKind::kTranspose:
    case OpKind::kPad:
    case OpKind::kSoftmax:
    case OpKind::kConv:
    case OpKind::kGemm:
    case OpKind::kBatchNorm:
    case OpKind::kChannelAffine:
    case OpKind::kActivation:
    case OpKind::kBinary:
    case OpKind::kReshape:
    case OpKind::kPool:
    case OpKind::kGlobalPool:
    case OpKind::kDepthToSpace:
    case OpKind::kSpaceToDepth:
      return nullptr;
    default:
      return "no backward for this op";
  }
}

void ApplyFusedActivationGrad(const OpDesc& op, const float* y, float* dy, size_t n) {
  const kernels::Activation* act = FusedActivation(op);
  if (act == nullptr || act->kind == kernels::ActKind::kNone) return;
  for (size_t i = 0; i < n; ++i) dy[i] *= ActGradFromOutput(*act, y[i]);
}

void Backward(Trainer::State& s, size_t op_index) {
  const OpDesc& op = s.ops[op_index];
  const TensorInfo& y = s.tensors[op.outputs[0]];
  if (op.kind != OpKind::kBatchNorm)  // BatchNorm recomputes it from x̂ (BackwardBatchNorm)
    ApplyFusedActivationGrad(op, y.data, s.grads[op.outputs[0]], y.elems);
  switch (op.kind) {
    case OpKind::kConv:
      BackwardConv(s, op);
      break;
    case OpKind::kGemm:
      BackwardGemm(s, op);
      break;
    case OpKind::kBatchNorm:
      for (size_t b = 0; b < s.num_bns; ++b)
        if (s.bns[b].op == static_cast<int32_t>(op_index)) BackwardBatchNorm(s, op, s.bns[b]);
      break;
    case OpKind::kChannelAffine:
      BackwardChannelAffine(s, op);
      break;
    case OpKind::kActivation:
      BackwardActivation(s, op);
      break;
    case OpKind::kPRelu:
      BackwardPRelu(s, op);
      break;
    case OpKind::kBinary:
      BackwardBinary(s, op);
      break;
    case OpKind::kConcat:
      BackwardConcat(s, op);
      break;
    case OpKind::kReshape:
      BackwardReshape(s, op);
      break;
    case OpKind::kTranspose:
      BackwardTranspose(s, op);
      break;
    case OpKind::kDepthToSpace:
    case OpKind::kSpaceToDepth:
      BackwardDepthSpace(s, op);
      break;
    case OpKind::kPool:
      BackwardPool(s, op);
      break;
    case OpKind::kGlobalPool:
      BackwardGlobalPool(s, op);
      break;
    case OpKind::kPad:
      BackwardPad(s, op);
      break;
    case OpKind::kSoftmax:
      BackwardSoftmax(s, op);
      break;
    default:
      break;  // rejected at Create
  }
}

}  // namespace edgefold::internal
