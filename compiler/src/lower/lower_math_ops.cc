// FC (Gemm/MatMul with constant B), MatMul, BatchNorm, ChannelAffine, activations, PRelu, Binary.
#include "lower/lower_context.h"
#include "passes/activation.h"
#include "passes/const_eval.h"

namespace edgefold::compiler {

void LowerFC(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0)), w = ctx.Tensor(n, n.In(1)), b = ctx.Tensor(n, n.In(2));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  const std::vector<int64_t>& xs = ctx.Shape(x);
  if (xs.empty() || xs.back() != ctx.Shape(w)[0])
    throw CompileError(n.Msg("input " + ir::ShapeString(xs) + " does not match weights [K,N] " +
                             ir::ShapeString(ctx.Shape(w))));
  fb::GemmOptionsT opt;
  opt.activation = ToFbActivation(n.act);
  ctx.AddOp(fb::OpType::Gemm, n, {x, w, b}, {y}).options.Set(std::move(opt));
}

void LowerMatMul(LowerContext& ctx, const ir::Node& n) {
  if (ctx.graph().IsConst(n.In(0))) throw CompileError(n.Msg("constant A with a non-constant B is unsupported"));
  const int a = ctx.Tensor(n, n.In(0)), b = ctx.Tensor(n, n.In(1));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (ctx.Shape(a).size() < 2 || ctx.Shape(b).size() < 2) throw CompileError(n.Msg("inputs must have rank >= 2"));
  ctx.AddOp(fb::OpType::MatMul, n, {a, b}, {y}).options.Set(fb::MatMulOptionsT());
}

void LowerBatchNorm(LowerContext& ctx, const ir::Node& n) {
  std::vector<int> in;
  for (size_t i = 0; i < 5; ++i) in.push_back(ctx.Tensor(n, n.In(i)));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  fb::BatchNormOptionsT opt;
  opt.epsilon = static_cast<float>(n.Float("epsilon", 1e-5));
  opt.momentum = static_cast<float>(1.0 - n.Float("momentum", 0.9));  // ONNX m' = 1 − PyTorch m
  opt.activation = ToFbActivation(n.act);
  ctx.AddOp(fb::OpType::BatchNorm, n, in, {y}).options.Set(std::move(opt));
}

void LowerChannelAffine(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0)), s = ctx.Tensor(n, n.In(1)), t = ctx.Tensor(n, n.In(2));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  fb::ChannelAffineOptionsT opt;
  opt.activation = ToFbActivation(n.act);
  ctx.AddOp(fb::OpType::ChannelAffine, n, {x, s, t}, {y}).options.Set(std::move(opt));
}

void LowerActivation(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  fb::ActivationOptionsT opt;
  opt.activation = ToFbActivation(passes::ParseActivation(ctx.graph(), n));
  ctx.AddOp(fb::OpType::Activation, n, {x}, {y}).options.Set(std::move(opt));
}

// The slope keeps its ONNX shape and broadcasts to X by numpy rules ([C,1,1] per channel,
// [1] shared); the runtime picks its per-channel kernel from that shape.
void LowerPRelu(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (!ctx.graph().IsConst(n.In(1))) throw CompileError(n.Msg("slope must be a constant"));
  const int s = ctx.Tensor(n, n.In(1));
  if (passes::BroadcastShapes(n, ctx.Shape(x), ctx.Shape(s)) != ctx.Shape(x))
    throw CompileError(n.Msg("slope of shape " + ir::ShapeString(ctx.Shape(s)) + " does not broadcast to X " +
                             ir::ShapeString(ctx.Shape(x))));
  ctx.AddOp(fb::OpType::PRelu, n, {x, s}, {y}).options.Set(fb::PReluOptionsT());
}

void LowerBinary(LowerContext& ctx, const ir::Node& n) {
  const int a = ctx.Tensor(n, n.In(0)), b = ctx.Tensor(n, n.In(1));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  fb::BinaryOptionsT opt;
  opt.kind = n.op == "Add" ? fb::BinaryKind::Add : n.op == "Sub" ? fb::BinaryKind::Sub
           : n.op == "Mul" ? fb::BinaryKind::Mul : fb::BinaryKind::Div;
  opt.activation = ToFbActivation(n.act);
  ctx.AddOp(fb::OpType::Binary, n, {a, b}, {y}).options.Set(std::move(opt));
}

}  // namespace edgefold::compiler
