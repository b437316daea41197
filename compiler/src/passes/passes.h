// Graph passes, run in this order by the compiler driver. Each rewrites the IR in place and
// throws CompileError naming the node when the model is invalid.
#pragma once
#include <set>
#include "ir/graph.h"

namespace edgefold::compiler::passes {

// Drops Identity and Dropout (inference: Dropout is the identity). Returns nodes removed.
int RemoveIdentity(ir::Graph& graph);
// Drops Pad with all-zero pads and Reshape/Flatten to the same shape (known shapes only).
int RemoveNoOpCopies(ir::Graph& graph);

// Evaluates nodes whose inputs are all constant (and Shape of a known shape) on the host,
// replacing their outputs with constants. Returns nodes removed.
int FoldConstants(ir::Graph& graph);

// Rewrites Gemm, and MatMul with a constant B, into the internal op "FC":
//   Y[M,N] = X[M,K]·W[K,N] + B[N]   with alpha, beta, transB folded into W and B.
void CanonicalizeFullyConnected(ir::Graph& graph);

struct BatchNormStats {
  int found = 0;
  int folded_backward = 0;  // into the producing Conv / ConvTranspose / FC
  int folded_forward = 0;   // into the consuming unpadded Conv / FC
  int kept = 0;             // ChannelAffine, or BatchNormalization when !fold
};
// Validates every BatchNormalization and, when `fold`, folds it into the producing Conv/ConvTranspose/FC
//   W' = W·s, b' = (b−μ)·s + β, s = γ/√(σ²+ε)   (per output channel, in double)
// or else forward into a consuming Conv without padding / 2-D FC (passes/fold_forward.h),
// or, with nothing to fold into, rewrites it to ChannelAffine(scale = s, shift = β − μ·s).
// keep_adaptation (--adaptable): a BN folded backward into a Conv/FC leaves on it the attribute
// kBnAdaptAttr, floats [|γ| per channel, β per channel, ε·s² per channel], which lowering
// turns into the operator's BnAdaptation (schemas/model.fbs).
BatchNormStats FoldBatchNorm(ir::Graph& graph, bool fold, bool keep_adaptation = false);
inline constexpr const char* kBnAdaptAttr = "edgefold.bn_adapt";

// Throws naming the node and the constant when a float constant holds NaN or Inf.
void CheckFiniteConstants(const ir::Graph& graph);
// Throws naming the node when a Conv's or ConvTranspose's constant bias does not hold one value
// per output channel.
void CheckConvOperands(const ir::Graph& graph);

// --input-mean/--input-std: makes the model take raw input, inserting a ChannelAffine
// x·(1/σ) − μ/σ on graph input 0 (named "input_normalization"). Throws on bad sizes/σ ≤ 0.
void InsertInputNormalization(ir::Graph& graph, const std::vector<float>& mean,
                              const std::vector<float>& std_dev);
// Folds that node forward into the first Conv/FC where exact (no padding); see input_norm.cc.
bool FoldInputNormalization(ir::Graph& graph);

// Rewrites Mul(x, Sigmoid(x)) into one "SiLU" node and Mul(x, HardSigmoid(x)) with α = 1/6,
// β = 1/2 into HardSwish (either operand order) when the gate feeds only that Mul and is not a
// graph output. Run before FuseActivations so the result joins the producer's epilogue.
// Returns the gates removed.
int FuseGatedActivations(ir::Graph& graph);

// Rewrites GELU's erf form as PyTorch exports it, x·½·(1 + erf(x/√2)) in five ops
// (Div/Erf/Add/Mul/Mul; fuse_gelu.cc lists the variants), into one internal "Gelu" node. Runs
// whether or not activations are fused (a stand-alone Gelu trains from its input). Returns the
// patterns rewritten.
int FuseGelu(ir::Graph& graph);

// Rewrites LayerNormalization as exports below opset 17 spell it (ReduceMean, Sub, Pow/Mul,
// ReduceMean, Add ε, Sqrt, Div, then optional Mul γ and Add β; fuse_layer_norm.cc states the
// checks) into one LayerNormalization node. Near misses stay unfused. Returns the patterns fused.
int FuseLayerNorm(ir::Graph& graph);

// A two-operand Mul with both operands present and no activation fused into it yet: the start
// of the gated-activation and channel-scale patterns.
inline bool IsPlainMul(const ir::Node& n) {
  return n.op == "Mul" && n.inputs.size() == 2 && n.outputs.size() == 1 &&
         n.act.kind == kernels::ActKind::kNone && !n.inputs[0].empty() && !n.inputs[1].empty();
}

// Fuses Relu/Clip/LeakyRelu/Sigmoid/HardSigmoid/HardSwish/SiLU/Tanh/Gelu (FusableIntoProducer) into
// the producing Conv, ConvTranspose, FC, ChannelAffine, BatchNormalization or Add/Sub/Mul/Div when it is the
// sole consumer. clamps_only: Relu and Clip only (int8 models: the int8 output clamp expresses
// those; the others stay ops of their own and become int8 lookup tables). keep: tensors an
// activation never fuses across (a QDQ model quantizes them between the op and its activation).
int FuseActivations(ir::Graph& graph, bool clamps_only = false,
                    const std::set<std::string>& keep = {});
// The same kinds only into BatchNormalization (for training: the trainer recomputes the
// activation's gradient from the BN's saved x̂, so the fused output need not be kept for the
// backward).
int FuseActivationsIntoBatchNorm(ir::Graph& graph);

// Squeeze-and-excitation: Mul(x, s) with s one value per channel of x [1, C, H, W], feeding only a
// pointwise group-1 Conv with out_c ≤ H·W (else scaling W costs more than the Mul), becomes that
// Conv's input 3 (channel scale, W'[o, c] = W[o, c]·s[c] at run time) and the Mul goes. Run after
// FuseActivations. Returns the Muls removed.
int FuseChannelScale(ir::Graph& graph);

// A pointwise group-1 Conv whose output t only feeds a depthwise Conv becomes that Conv's inputs
// 4 and 5 (kernels/conv/conv_expand.h: t computed band by band in scratch, never stored whole)
// when t is at least two bands of band_bytes (0: never). Run after FuseActivations (the
// expansion's activation moves along). Returns the expansions fused.
int FuseExpansionIntoDepthwise(ir::Graph& graph, size_t band_bytes);

}  // namespace edgefold::compiler::passes
