#include "quant/int8_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "error.h"
#include "kernels/act_scalar.h"
#include "kernels/conv/conv_scratch.h"
#include "kernels/reference.h"
#include "quant/weights_int8.h"

namespace edgefold::compiler::quant {
namespace {

// "" when the fused activation is one the int8 output clamp can express.
std::string ActivationBlocker(const fb::Activation* a) {
  if (a == nullptr || a->kind() == fb::ActivationKind::None ||
      a->kind() == fb::ActivationKind::Relu || a->kind() == fb::ActivationKind::Clip)
    return "";
  return std::string("its fused ") + fb::EnumNameActivationKind(a->kind()) +
         " is not Relu/Relu6/Clip";
}

int AddConstant(LoweredModel* m, const std::string& name, std::vector<int64_t> shape,
                fb::DType dtype, std::vector<uint8_t> raw) {
  LoweredTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.is_const = true;
  t.dtype = dtype;
  t.bytes = raw.size();
  t.raw = std::move(raw);
  m->tensors.push_back(std::move(t));
  return static_cast<int>(m->tensors.size()) - 1;
}

template <class T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Appends W (int8), B, M, shift for `channels` output channels of `per` weights each, and
// points op inputs 1..4 at them. bias_f may be empty; `given`: the model's weight scales or nullptr.
void AddChannelOperands(fb::OperatorT* op, LoweredModel* m, const std::vector<float>& w,
                        const std::vector<float>& bias_f, std::vector<int64_t> w_shape,
                        size_t channels, size_t per, const ActQuant& in, const ActQuant& out,
                        const ModelWeightScales* given, int weight_max, LayerInfo* info) {
  std::vector<float> s_w;
  const std::vector<int8_t> wq =
      given ? WeightsAtModelScales(w, channels, per, *given, op->name, &s_w)
            : QuantizeWeights(w, channels, per, weight_max, &s_w);
  std::vector<int32_t> bias(channels), mult(channels), shift(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double s_acc = static_cast<double>(in.scale) * s_w[c];
    int64_t sum_w = 0;
    for (size_t k = 0; k < per; ++k) sum_w += wq[c * per + k];
    const double b = bias_f.empty() ? 0.0 : std::round(bias_f[c] / s_acc);
    const double folded = b - static_cast<double>(in.zero_point) * static_cast<double>(sum_w);
    if (!(std::fabs(folded) < 2147483647.0 / 2))
      throw CompileError("node '" + op->name + "': channel " + std::to_string(c) +
                         "'s bias does not fit int32 at scale " + std::to_string(s_acc));
    bias[c] = static_cast<int32_t>(folded);
    if (!QuantizeMultiplier(s_acc / out.scale, &mult[c], &shift[c]))
      throw CompileError("node '" + op->name + "': requantization multiplier of channel " +
                         std::to_string(c) + " out of range");
  }
  const std::string base = m->tensors[static_cast<size_t>(op->outputs[0])].name;
  const int wi = AddConstant(m, base + "/w_int8", std::move(w_shape), fb::DType::Int8, Bytes(wq));
  m->tensors[static_cast<size_t>(wi)].scales = s_w;
  m->tensors[static_cast<size_t>(wi)].zero_points.assign(channels, 0);
  const std::vector<int64_t> vec{static_cast<int64_t>(channels)};
  const int bi = AddConstant(m, base + "/bias_int32", vec, fb::DType::Int32, Bytes(bias));
  const int mi = AddConstant(m, base + "/multiplier", vec, fb::DType::Int32, Bytes(mult));
  const int si = AddConstant(m, base + "/shift", vec, fb::DType::Int32, Bytes(shift));
  op->inputs = {op->inputs[0], wi, bi, mi, si};
  info->w_scale_min = *std::min_element(s_w.begin(), s_w.end());
  info->w_scale_max = *std::max_element(s_w.begin(), s_w.end());
}

const std::vector<float>& ConstData(const LoweredModel& m, int i) {
  return m.tensors.at(static_cast<size_t>(i)).data;
}

// s is one value per (n, c) of y [N, C, …]: [N, C, 1, …] (MulInt8's broadcast).
bool IsPerChannelOf(const std::vector<int64_t>& s, const std::vector<int64_t>& y) {
  if (y.size() < 2 || s.size() != y.size() || s[0] != y[0] || s[1] != y[1]) return false;
  for (size_t d = 2; d < s.size(); ++d)
    if (s[d] != 1) return false;
  return true;
}

bool InputIsConst(const fb::OperatorT& op, const LoweredModel& m, size_t i) {
  return i < op.inputs.size() && op.inputs[i] >= 0 &&
         m.tensors[static_cast<size_t>(op.inputs[i])].is_const;
}

std::string ConvBlocker(const fb::OperatorT& op, const LoweredModel& m) {
  const auto is_const = [&](size_t i) { return InputIsConst(op, m, i); };
  const auto* o = op.options.AsConvOptions();
  if (o->packing != fb::WeightPacking::Plain) return "Winograd-packed weights";
  if (op.inputs.size() > 3 && op.inputs[3] >= 0)
    return "a fused channel scale (squeeze-excitation) has no int8 kernel";
  if (!is_const(1) || (op.inputs.size() > 2 && op.inputs[2] >= 0 && !is_const(2)))
    return "weights or bias are not constants";
  return ActivationBlocker(o->activation.get());
}

std::string GemmBlocker(const fb::OperatorT& op, const LoweredModel& m) {
  const auto is_const = [&](size_t i) { return InputIsConst(op, m, i); };
  if (!is_const(1) || (op.inputs.size() > 2 && op.inputs[2] >= 0 && !is_const(2)))
    return "weights or bias are not constants";
  if (m.tensors[static_cast<size_t>(op.inputs[0])].shape.size() != 2)
    return "its input is not rank 2";
  if (op.inputs.size() > 2 && op.inputs[2] >= 0 &&
      static_cast<int64_t>(ConstData(m, op.inputs[2]).size()) !=
          m.tensors[static_cast<size_t>(op.outputs[0])].shape[1])
    return "its bias is not one value per output";
  return ActivationBlocker(op.options.AsGemmOptions()->activation.get());
}

std::string BinaryBlocker(const fb::OperatorT& op, const LoweredModel& m) {
  const auto is_const = [&](size_t i) { return InputIsConst(op, m, i); };
  const auto* o = op.options.AsBinaryOptions();
  if (o->kind != fb::BinaryKind::Add && o->kind != fb::BinaryKind::Mul)
    return "only Add and Mul have int8 kernels among the binary ops";
  if (is_const(1))
    return std::string("a ") + fb::EnumNameBinaryKind(o->kind) +
           " by a constant has no int8 kernel";
  const auto& y = m.tensors[static_cast<size_t>(op.outputs[0])].shape;
  const auto& a = m.tensors[static_cast<size_t>(op.inputs[0])].shape;
  const auto& b = m.tensors[static_cast<size_t>(op.inputs[1])].shape;
  if (o->kind == fb::BinaryKind::Add && (a != y || b != y))
    return "a broadcasting Add has no int8 kernel";
  if (o->kind == fb::BinaryKind::Mul &&
      !((a == y && (b == y || IsPerChannelOf(b, y))) || (b == y && IsPerChannelOf(a, y))))
    return "a Mul broadcasting other than one value per (n, c) has no int8 kernel";
  return ActivationBlocker(o->activation.get());
}

}  // namespace

std::string Int8Blocker(const fb::OperatorT& op, const LoweredModel& m) {
  const auto is_const = [&](size_t i) { return InputIsConst(op, m, i); };
  if (op.inputs.empty() || op.inputs[0] < 0 || is_const(0)) return "its input is a constant";
  switch (op.type) {
    case fb::OpType::Conv:
      return ConvBlocker(op, m);
    case fb::OpType::Gemm:
      return GemmBlocker(op, m);
    case fb::OpType::Binary:
      return BinaryBlocker(op, m);
    case fb::OpType::Pool:
      return op.options.AsPoolOptions()->ceil_mode ? "ceil_mode pooling has no int8 kernel" : "";
    case fb::OpType::Concat:
      for (size_t i = 1; i < op.inputs.size(); ++i)
        if (op.inputs[i] < 0 || is_const(i))
          return "a Concat with a constant input has no int8 kernel";
      return "";
    case fb::OpType::Softmax: {
      const int rank = static_cast<int>(m.tensors[static_cast<size_t>(op.inputs[0])].shape.size());
      const int axis = op.options.AsSoftmaxOptions()->axis;
      return axis == -1 || axis == rank - 1 ? "" : "an int8 Softmax runs over the last axis only";
    }
    case fb::OpType::GlobalPool:
    case fb::OpType::Reshape:
    case fb::OpType::Transpose:
    case fb::OpType::Slice:
    case fb::OpType::Pad:  // constant: the value quantized like the tensor (ops/pad.cc)
    case fb::OpType::Activation:
      return "";  // any elementwise activation: a lookup table
    default:
      return "no int8 kernel for this op";
  }
}

ActQuant SoftmaxOutputQuant() {
  return ActQuant{kernels::kSoftmaxS8OutputScale, kernels::kSoftmaxS8OutputZeroPoint};
}

void ActivationClamp(const fb::Activation* a, const ActQuant& out, int32_t* lo, int32_t* hi) {
  *lo = -128;
  *hi = 127;
  if (a == nullptr) return;
  if (a->kind() == fb::ActivationKind::Relu) *lo = std::max(-128, out.zero_point);
  if (a->kind() == fb::ActivationKind::Clip) {
    *lo = QuantizeValue(a->alpha(), out);
    *hi = QuantizeValue(a->beta(), out);
  }
}

namespace {

// Conv → ConvInt8: per-channel int8 weights, int32 bias, requantization per channel.
void MakeConvInt8(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                  const ModelWeightScales* weights, int weight_max, LayerInfo* info) {
  const LoweredTensor& y = m->tensors[static_cast<size_t>(op->outputs[0])];
  fb::ConvOptionsT c = *op->options.AsConvOptions();
  const LoweredTensor& wt = m->tensors[static_cast<size_t>(op->inputs[1])];
  const std::vector<float> w = wt.data;
  const std::vector<int64_t> w_shape = wt.shape;
  const std::vector<float> b = op->inputs.size() > 2 && op->inputs[2] >= 0
                                   ? ConstData(*m, op->inputs[2])
                                   : std::vector<float>();
  const size_t channels = static_cast<size_t>(w_shape[0]), per = w.size() / channels;
  kernels::Conv2dShape s;
  const LoweredTensor& x = m->tensors[static_cast<size_t>(op->inputs[0])];
  const bool two_d = x.shape.size() == 4;
  s.in_c = static_cast<size_t>(x.shape[1]);
  s.in_h = two_d ? static_cast<size_t>(x.shape[2]) : 1;
  s.in_w = static_cast<size_t>(x.shape.back());
  s.out_c = channels;
  s.out_h = two_d ? static_cast<size_t>(y.shape[2]) : 1;
  s.out_w = static_cast<size_t>(y.shape.back());
  kernels::SetWindow2d(c.kernel.data(), c.strides.data(), c.dilations.data(), c.pads.data(), &s);
  s.group = static_cast<size_t>(c.group);
  fb::ConvInt8OptionsT o;
  o.kernel = c.kernel;
  o.strides = c.strides;
  o.dilations = c.dilations;
  o.pads = c.pads;
  o.group = c.group;
  ActivationClamp(c.activation.get(), out, &o.act_min, &o.act_max);
  info->act_min = o.act_min;
  info->act_max = o.act_max;
  info->type =
      c.group > 1 && static_cast<size_t>(c.group) == s.in_c ? "ConvInt8 (depthwise)" : "ConvInt8";
  AddChannelOperands(op, m, w, b, w_shape, channels, per, in[0], out, weights, weight_max, info);
  op->type = fb::OpType::ConvInt8;
  op->options.Set(std::move(o));
  op->scratch_bytes = kernels::ConvS8ScratchBytes(s);
}

// Gemm → GemmInt8: W [K, N] stored as [N, K], one row per output channel.
void MakeGemmInt8(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                  const ModelWeightScales* weights, int weight_max, LayerInfo* info) {
  const LoweredTensor& wt = m->tensors[static_cast<size_t>(op->inputs[1])];  // [K, N]
  const size_t k = static_cast<size_t>(wt.shape[0]), n = static_cast<size_t>(wt.shape[1]);
  std::vector<float> w(k * n);  // → [N, K]: one row per output channel
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < n; ++j) w[j * k + i] = wt.data[i * n + j];
  const std::vector<float> b = op->inputs.size() > 2 && op->inputs[2] >= 0
                                   ? ConstData(*m, op->inputs[2])
                                   : std::vector<float>();
  fb::GemmInt8OptionsT o;
  ActivationClamp(op->options.AsGemmOptions()->activation.get(), out, &o.act_min, &o.act_max);
  info->act_min = o.act_min;
  info->act_max = o.act_max;
  info->type = "GemmInt8";
  AddChannelOperands(op, m, w, b, {static_cast<int64_t>(n), static_cast<int64_t>(k)}, n, k, in[0],
                     out, weights, weight_max, info);
  op->type = fb::OpType::GemmInt8;
  op->options.Set(std::move(o));
  op->scratch_bytes = 0;
}

// Activation → LutInt8: a 256-entry table.
void MakeLutInt8(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                 const ModelWeightScales* weights, LayerInfo* info) {
  // The activation of each of the 256 int8 inputs, dequantized, computed by the runtime's
  // scalar formula and quantized by Quantize's rule into the output's scale and zero point.
  const fb::Activation* a = op->options.AsActivationOptions()->activation.get();
  kernels::Activation act;
  if (a != nullptr)
    act = kernels::Activation{static_cast<kernels::ActKind>(a->kind()), a->alpha(), a->beta()};
  std::vector<float> values(256);
  for (int q = -128; q < 128; ++q)
    values[static_cast<size_t>(q + 128)] =
        kernels::ActOne(static_cast<float>(q - in[0].zero_point) * in[0].scale, act);
  std::vector<int8_t> table(256);
  kernels::ref::QuantizeS8(kernels::QuantS8Params{out.scale, 1.0f / out.scale, out.zero_point},
                           values.data(), table.data(), table.size());
  const int t = AddConstant(m, op->name + "/table", {256}, fb::DType::Int8, Bytes(table));
  m->tensors.back().scales = {out.scale};
  m->tensors.back().zero_points = {out.zero_point};
  op->inputs = {op->inputs[0], t};
  info->type = std::string("LutInt8 (") +
               (a != nullptr ? fb::EnumNameActivationKind(a->kind()) : "None") + ")";
  op->type = fb::OpType::LutInt8;
  op->options.Set(fb::LutInt8OptionsT());
  op->scratch_bytes = 0;
}

// Softmax → SoftmaxInt8.
void MakeSoftmaxInt8(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                     const ModelWeightScales* weights, LayerInfo* info) {
  // The exp table of X's scale (kernels/ref/softmax_s8.h); Y is always 1/256, −128.
  std::vector<int32_t> table(kernels::kSoftmaxS8TableElems);
  kernels::SoftmaxS8ExpTable(in[0].scale, table.data());
  const int t = AddConstant(m, op->name + "/exp_table", {static_cast<int64_t>(table.size())},
                            fb::DType::Int32, Bytes(table));
  op->inputs = {op->inputs[0], t};
  info->type = "SoftmaxInt8";
  op->type = fb::OpType::SoftmaxInt8;
  op->options.Set(fb::SoftmaxInt8OptionsT());
  op->scratch_bytes = 0;
}

// Binary Mul → MulInt8.
void MakeMulInt8(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                 const ModelWeightScales* weights, LayerInfo* info) {
  const LoweredTensor& y = m->tensors[static_cast<size_t>(op->outputs[0])];
  // The full-shape operand first (the per-channel one second), as MulInt8 reads them.
  if (m->tensors[static_cast<size_t>(op->inputs[0])].shape != y.shape)
    std::swap(op->inputs[0], op->inputs[1]);
  fb::MulInt8OptionsT o;
  ActivationClamp(op->options.AsBinaryOptions()->activation.get(), out, &o.act_min, &o.act_max);
  const double real = static_cast<double>(in[0].scale) * in[1].scale / out.scale;
  if (!QuantizeMultiplier(real, &o.multiplier, &o.shift))
    throw CompileError("node '" + op->name + "': Mul rescale out of range");
  info->act_min = o.act_min;
  info->act_max = o.act_max;
  info->type = "MulInt8";
  op->type = fb::OpType::MulInt8;
  op->options.Set(std::move(o));
  op->scratch_bytes = 0;
}

// Binary Add → AddInt8: both operands rescaled to the output's scale.
void MakeAddInt8(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                 const ModelWeightScales* weights, LayerInfo* info) {
  fb::AddInt8OptionsT o;
  ActivationClamp(op->options.AsBinaryOptions()->activation.get(), out, &o.act_min, &o.act_max);
  const double ra = in[0].scale / static_cast<double>(out.scale),
               rb = in[1].scale / static_cast<double>(out.scale);
  int e = 0;
  std::frexp(std::max(ra, rb), &e);  // max(ra, rb)·2^(31−e) ∈ [2^30, 2^31)
  o.shift = 31 - e;
  if (o.shift < 1 || o.shift > 62)
    throw CompileError("node '" + op->name + "': Add rescale out of range");
  o.multiplier_a =
      static_cast<int32_t>(std::min(2147483647.0, std::round(std::ldexp(ra, o.shift))));
  o.multiplier_b =
      static_cast<int32_t>(std::min(2147483647.0, std::round(std::ldexp(rb, o.shift))));
  info->act_min = o.act_min;
  info->act_max = o.act_max;
  info->type = "AddInt8";
  op->type = fb::OpType::AddInt8;
  op->options.Set(std::move(o));
  op->scratch_bytes = 0;
}

}  // namespace

LayerInfo MakeInt8Op(fb::OperatorT* op, LoweredModel* m, const ActQuant* in, const ActQuant& out,
                     const ModelWeightScales* weights, int weight_max) {
  LayerInfo info;
  info.name = op->name;
  info.output = op->outputs[0];
  info.in_scale = in[0].scale;
  info.out_scale = out.scale;
  info.out_zero_point = out.zero_point;
  switch (op->type) {
    case fb::OpType::Conv:
      MakeConvInt8(op, m, in, out, weights, weight_max, &info);
      break;
    case fb::OpType::Gemm:
      MakeGemmInt8(op, m, in, out, weights, weight_max, &info);
      break;
    case fb::OpType::Activation:
      MakeLutInt8(op, m, in, out, weights, &info);
      break;
    case fb::OpType::Softmax:
      MakeSoftmaxInt8(op, m, in, out, weights, &info);
      break;
    default:
      if (op->options.AsBinaryOptions()->kind == fb::BinaryKind::Mul)
        MakeMulInt8(op, m, in, out, weights, &info);
      else
        MakeAddInt8(op, m, in, out, weights, &info);
  }
  return info;
}

}  // namespace edgefold::compiler::quant
