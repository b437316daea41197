// FC (Gemm/MatMul with constant B), MatMul, BatchNorm, ChannelAffine, activations, Pow, PRelu,
// Binary, Min/Max.
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
  if (ctx.graph().IsConst(n.In(0)))
    throw CompileError(n.Msg("constant A with a non-constant B is unsupported"));
  const int a = ctx.Tensor(n, n.In(0)), b = ctx.Tensor(n, n.In(1));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  if (ctx.Shape(a).size() < 2 || ctx.Shape(b).size() < 2)
    throw CompileError(n.Msg("inputs must have rank >= 2"));
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
    throw CompileError(n.Msg("slope of shape " + ir::ShapeString(ctx.Shape(s)) +
                             " does not broadcast to X " + ir::ShapeString(ctx.Shape(x))));
  ctx.AddOp(fb::OpType::PRelu, n, {x, s}, {y}).options.Set(fb::PReluOptionsT());
}

void LowerBinary(LowerContext& ctx, const ir::Node& n) {
  const int a = ctx.Tensor(n, n.In(0)), b = ctx.Tensor(n, n.In(1));
  const int y = ctx.Tensor(n, n.outputs.at(0));
  fb::BinaryOptionsT opt;
  opt.kind = n.op == "Add"   ? fb::BinaryKind::Add
             : n.op == "Sub" ? fb::BinaryKind::Sub
             : n.op == "Mul" ? fb::BinaryKind::Mul
                             : fb::BinaryKind::Div;
  opt.activation = ToFbActivation(n.act);
  ctx.AddOp(fb::OpType::Binary, n, {a, b}, {y}).options.Set(std::move(opt));
}

// Pow(X, e), e a constant (ParseActivation checks that): one Activation op; the exponent must
// not widen X by broadcasting.
void LowerPow(LowerContext& ctx, const ir::Node& n) {
  const int x = ctx.Tensor(n, n.In(0));
  const ir::Tensor& e = ctx.Ir(n, 1);
  if (!e.is_const)
    throw CompileError(
        n.Msg("exponent (input 1) must be a constant; a computed exponent is unsupported"));
  if (passes::BroadcastShapes(n, ctx.Shape(x), e.shape) != ctx.Shape(x))
    throw CompileError(n.Msg("exponent of shape " + ir::ShapeString(e.shape) + " broadcasts X " +
                             ir::ShapeString(ctx.Shape(x)) + " to a larger shape (unsupported)"));
  LowerActivation(ctx, n);
}

// Min/Max over 1…k inputs with numpy broadcasting: a chain of two-input Binary ops
// ((x0 op x1) op x2) …; one input is op(x0, x0) = x0.
void LowerMinMax(LowerContext& ctx, const ir::Node& n) {
  std::vector<int> in;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.In(i).empty()) throw CompileError(n.Msg("input " + std::to_string(i) + " is empty"));
    in.push_back(ctx.Tensor(n, n.In(i)));
  }
  if (in.empty()) throw CompileError(n.Msg("needs at least one input"));
  if (in.size() == 1) in.push_back(in[0]);
  const int y = ctx.Tensor(n, n.outputs.at(0));
  int acc = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    const std::vector<int64_t> shape = passes::BroadcastShapes(n, ctx.Shape(acc), ctx.Shape(in[i]));
    const bool last = i + 1 == in.size();
    if (last && shape != ctx.Shape(y))
      throw CompileError(n.Msg("inputs broadcast to " + ir::ShapeString(shape) + ", output is " +
                               ir::ShapeString(ctx.Shape(y))));
    const int out = last ? y : ctx.NewTensor(n.outputs[0] + "_partial", shape, false, {});
    fb::BinaryOptionsT opt;
    opt.kind = n.op == "Min" ? fb::BinaryKind::Min : fb::BinaryKind::Max;
    opt.activation = ToFbActivation(n.act);  // only the last op may carry a fused activation
    if (!last) opt.activation = ToFbActivation(kernels::Activation{});
    ctx.AddOp(fb::OpType::Binary, n, {acc, in[i]}, {out}).options.Set(std::move(opt));
    acc = out;
  }
}

}  // namespace edgefold::compiler
