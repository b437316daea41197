#include "lower/lower.h"

#include <functional>

#include "lower/lower_context.h"
#include "passes/passes.h"

namespace edgefold::compiler {

int LowerContext::Tensor(const ir::Node& node, const std::string& name) {
  if (name.empty()) return -1;
  auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  const ir::Tensor& t = graph_.At(name);
  if (!t.shape_known) throw CompileError(node.Msg("tensor '" + name + "' has no static shape"));
  if (!t.is_const && t.dtype != ir::kFloat)
    throw CompileError(node.Msg("tensor '" + name + "' has element type " +
                                std::to_string(t.dtype) +
                                "; only float32 activations are supported"));
  std::vector<float> data(t.data.begin(), t.data.end());
  const int index = NewTensor(name, t.shape, t.is_const, std::move(data));
  model_->tensors[index].name = name;
  index_[name] = index;
  return index;
}

int LowerContext::NewTensor(const std::string& hint, std::vector<int64_t> shape, bool is_const,
                            std::vector<float> data) {
  LoweredTensor t;
  t.name = hint;
  for (int k = 1; graph_.tensors.count(t.name) || index_.count(t.name); ++k)
    t.name = hint + "_" + std::to_string(k);
  index_[t.name] = static_cast<int>(model_->tensors.size());
  t.bytes = static_cast<uint64_t>(ir::NumElements(shape)) * sizeof(float);
  t.shape = std::move(shape);
  t.is_const = is_const;
  t.data = std::move(data);
  model_->tensors.push_back(std::move(t));
  return static_cast<int>(model_->tensors.size()) - 1;
}

const ir::Tensor& LowerContext::Ir(const ir::Node& node, size_t input) const {
  if (node.In(input).empty())
    throw CompileError(node.Msg("missing input " + std::to_string(input)));
  return graph_.At(node.inputs[input]);
}

fb::OperatorT& LowerContext::AddOp(fb::OpType type, const ir::Node& node, std::vector<int> inputs,
                                   std::vector<int> outputs) {
  fb::OperatorT op;
  op.type = type;
  op.name = node.name;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  const auto adapt = node.attrs.find(passes::kBnAdaptAttr);
  if (adapt != node.attrs.end() && (type == fb::OpType::Conv || type == fb::OpType::Gemm)) {
    const std::vector<double>& f = adapt->second.floats;  // [|γ|, β, ε·s²] × channels
    const size_t c = f.size() / 3;
    op.bn_adapt = std::make_unique<fb::BnAdaptationT>();
    op.bn_adapt->gamma_abs.assign(f.begin(), f.begin() + static_cast<long>(c));
    op.bn_adapt->beta.assign(f.begin() + static_cast<long>(c),
                             f.begin() + static_cast<long>(2 * c));
    op.bn_adapt->eps_k2.assign(f.begin() + static_cast<long>(2 * c), f.end());
  }
  model_->ops.push_back(std::move(op));
  return model_->ops.back();
}

std::unique_ptr<fb::Activation> ToFbActivation(const kernels::Activation& act) {
  return std::make_unique<fb::Activation>(static_cast<fb::ActivationKind>(act.kind), act.alpha,
                                          act.beta);
}

ConvOperands ReadConvOperands(LowerContext& ctx, const ir::Node& n) {
  ConvOperands o;
  o.x = ctx.Tensor(n, n.In(0));
  if (n.In(1).empty() || !ctx.graph().IsConst(n.inputs[1]))
    throw CompileError(n.Msg("weights W must be a constant"));
  if (!n.In(2).empty() && !ctx.graph().IsConst(n.inputs[2]))
    throw CompileError(n.Msg("bias B must be a constant"));
  o.w = &ctx.Ir(n, 1);
  o.b = ctx.Tensor(n, n.In(2));
  o.y = ctx.Tensor(n, n.outputs.at(0));
  o.xs = ctx.Shape(o.x);
  o.ws = o.w->shape;
  o.ys = ctx.Shape(o.y);
  o.group = n.Int("group", 1);
  return o;
}

std::vector<int64_t> ConstInts(LowerContext& ctx, const ir::Node& n, size_t input, const char* attr,
                               const char* what) {
  if (n.In(input).empty()) return n.Ints(attr, {});
  if (!ctx.graph().IsConst(n.inputs[input]))
    throw CompileError(n.Msg(std::string("input '") + what + "' must be a constant"));
  const auto& d = ctx.Ir(n, input).data;
  return std::vector<int64_t>(d.begin(), d.end());
}

int32_t ToInt32(const ir::Node& node, int64_t v, const char* what) {
  if (v < INT32_MIN || v > INT32_MAX)
    throw CompileError(node.Msg(std::string(what) + " does not fit in 32 bits"));
  return static_cast<int32_t>(v);
}

std::vector<int32_t> ToInt32s(const ir::Node& node, const std::vector<int64_t>& v,
                              const char* what) {
  std::vector<int32_t> out;
  for (int64_t x : v) out.push_back(ToInt32(node, x, what));
  return out;
}

namespace {

// Each ONNX op's lowering (lower_*.cc).
using LowerFn = std::function<void(LowerContext&, const ir::Node&)>;
const std::map<std::string, LowerFn> kLowerings = {{"Conv", LowerConv},
                                                   {"MaxPool", LowerPool},
                                                   {"AveragePool", LowerPool},
                                                   {"GlobalAveragePool", LowerGlobalPool},
                                                   {"GlobalMaxPool", LowerGlobalPool},
                                                   {"Pad", LowerPad},
                                                   {"Softmax", LowerSoftmax},
                                                   {"FC", LowerFC},
                                                   {"MatMul", LowerMatMul},
                                                   {"LayerNormalization", LowerLayerNorm},
                                                   {"InstanceNormalization", LowerInstanceNorm},
                                                   {"BatchNormalization", LowerBatchNorm},
                                                   {"ChannelAffine", LowerChannelAffine},
                                                   {"Relu", LowerActivation},
                                                   {"Clip", LowerActivation},
                                                   {"LeakyRelu", LowerActivation},
                                                   {"Sigmoid", LowerActivation},
                                                   {"HardSigmoid", LowerActivation},
                                                   {"HardSwish", LowerActivation},
                                                   {"SiLU", LowerActivation},
                                                   {"Tanh", LowerActivation},
                                                   {"Exp", LowerActivation},
                                                   {"Log", LowerActivation},
                                                   {"Sqrt", LowerActivation},
                                                   {"Reciprocal", LowerActivation},
                                                   {"Neg", LowerActivation},
                                                   {"Abs", LowerActivation},
                                                   {"Erf", LowerActivation},
                                                   {"Gelu", LowerActivation},
                                                   {"Pow", LowerPow},
                                                   {"Min", LowerMinMax},
                                                   {"Max", LowerMinMax},
                                                   {"PRelu", LowerPRelu},
                                                   {"Add", LowerBinary},
                                                   {"Sub", LowerBinary},
                                                   {"Mul", LowerBinary},
                                                   {"Div", LowerBinary},
                                                   {"Concat", LowerConcat},
                                                   {"Reshape", LowerReshape},
                                                   {"Flatten", LowerReshape},
                                                   {"Squeeze", LowerReshape},
                                                   {"Unsqueeze", LowerReshape},
                                                   {"Transpose", LowerTranspose},
                                                   {"Slice", LowerSlice},
                                                   {"Split", LowerSplit},
                                                   {"ReduceMean", LowerReduce},
                                                   {"ReduceSum", LowerReduce},
                                                   {"ReduceMax", LowerReduce},
                                                   {"ReduceSumSquare", LowerReduce},
                                                   {"Resize", LowerResize},
                                                   {"Upsample", LowerResize},
                                                   {"DepthToSpace", LowerDepthToSpace},
                                                   {"SpaceToDepth", LowerDepthToSpace},
                                                   {"ConvTranspose", LowerConvTranspose},
                                                   {"GRU", LowerRnn},
                                                   {"LSTM", LowerRnn},
                                                   {"Gather", LowerGather},
                                                   {"Expand", LowerExpand}};

}  // namespace

LoweredModel Lower(const ir::Graph& graph, WinogradMode winograd, size_t winograd_min_channels,
                   bool transposed_weights) {
  LoweredModel model;
  LowerContext ctx(graph, &model, winograd, winograd_min_channels, transposed_weights);
  const ir::Node none{"graph", "input", {}, {}, {}, {}};
  for (const std::string& in : graph.inputs) model.inputs.push_back(ctx.Tensor(none, in));
  for (const ir::Node& node : graph.nodes) {
    auto it = kLowerings.find(node.op);
    if (it == kLowerings.end()) throw CompileError(node.Msg("unsupported op"));
    it->second(ctx, node);
  }
  const ir::Node out_node{"graph", "output", {}, {}, {}, {}};
  for (const std::string& out : graph.outputs) {
    const int index = ctx.Tensor(out_node, out);
    if (model.tensors[index].is_const)
      throw CompileError("model '" + graph.model_name + "': graph output '" + out +
                         "' is a constant (unsupported)");
    model.outputs.push_back(index);
  }
  if (model.ops.empty())
    throw CompileError("model '" + graph.model_name + "': graph has no operators left");
  return model;
}

}  // namespace edgefold::compiler
