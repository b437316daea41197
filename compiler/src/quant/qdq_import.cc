#include "quant/qdq_import.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "error.h"

namespace edgefold::compiler::quant {
namespace {

bool IsQuantize(const ir::Node& n) { return n.op == "QuantizeLinear"; }
bool IsDequantize(const ir::Node& n) { return n.op == "DequantizeLinear"; }

// A QuantizeLinear's or DequantizeLinear's scale and zero point, checked against its data.
struct QuantParams {
  std::vector<double> scale;
  std::vector<int64_t> zero_point;  // one per scale
  int32_t dtype = ir::kUint8;       // the quantized type: uint8, int8 (int32: a DQ'd bias)
  int axis = -1;                    // the quantized axis; -1: one scale for the tensor
  int64_t lo = 0, hi = 255;         // the quantized type's range
};

std::string TypeName(int32_t dtype) {
  return dtype == ir::kInt8    ? "int8"
         : dtype == ir::kUint8 ? "uint8"
         : dtype == ir::kInt32 ? "int32"
                               : "type " + std::to_string(dtype);
}

std::string Num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

void ReadZeroPoints(const ir::Graph& g, const ir::Node& n, const ir::Tensor& data, QuantParams* p) {
  if (n.In(2).empty()) {  // absent: 0 of uint8 (QuantizeLinear) or of the input's type
    p->zero_point.assign(p->scale.size(), 0);
    p->dtype = IsQuantize(n) ? ir::kUint8 : data.dtype;
  } else {
    if (!g.IsConst(n.In(2)))
      throw CompileError(n.Msg("zero point '" + n.In(2) + "' must be a constant"));
    const ir::Tensor& z = g.At(n.In(2));
    if (z.data.size() != p->scale.size())
      throw CompileError(n.Msg("has " + std::to_string(p->scale.size()) + " scales but " +
                               std::to_string(z.data.size()) + " zero points"));
    p->dtype = z.dtype;
    for (double v : z.data) p->zero_point.push_back(static_cast<int64_t>(v));
  }
  if (p->dtype == ir::kInt8)
    p->lo = -128, p->hi = 127;
  else if (p->dtype == ir::kUint8)
    p->lo = 0, p->hi = 255;
  else if (p->dtype == ir::kInt32 && IsDequantize(n))
    p->lo = p->hi = 0;  // an int32 bias: zero point 0
  else
    throw CompileError(n.Msg("quantized type " + TypeName(p->dtype) + " is not int8 or uint8"));
  for (size_t i = 0; i < p->zero_point.size(); ++i)
    if (p->zero_point[i] < p->lo || p->zero_point[i] > p->hi)
      throw CompileError(n.Msg("zero point[" + std::to_string(i) +
                               "] = " + std::to_string(p->zero_point[i]) + " is outside " +
                               TypeName(p->dtype) + " [" + std::to_string(p->lo) + ", " +
                               std::to_string(p->hi) + "]"));
  if (p->dtype == ir::kInt32) p->lo = INT32_MIN, p->hi = INT32_MAX;
}

QuantParams ReadParams(const ir::Graph& g, const ir::Node& n) {
  if (n.In(1).empty() || !g.IsConst(n.In(1)))
    throw CompileError(n.Msg("scale '" + n.In(1) + "' must be a constant"));
  const ir::Tensor& data = g.At(n.In(0));
  const ir::Tensor& s = g.At(n.In(1));
  QuantParams p;
  p.scale = s.data;
  if (p.scale.empty() || s.shape.size() > 1)
    throw CompileError(n.Msg("scale must be a scalar or 1-D and not empty"));
  for (size_t i = 0; i < p.scale.size(); ++i)
    if (!(std::isfinite(p.scale[i]) && p.scale[i] > 0))
      throw CompileError(n.Msg("scale[" + std::to_string(i) + "] = " + Num(p.scale[i]) +
                               " is not positive and finite"));
  ReadZeroPoints(g, n, data, &p);
  if (p.scale.size() == 1) return p;
  const int rank = static_cast<int>(data.shape.size());
  if (!data.shape_known) throw CompileError(n.Msg("per-axis scales need the input's shape"));
  int64_t axis = n.Int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    throw CompileError(n.Msg("axis " + std::to_string(n.Int("axis", 1)) +
                             " is outside the input's rank " + std::to_string(rank)));
  if (data.shape[static_cast<size_t>(axis)] != static_cast<int64_t>(p.scale.size()))
    throw CompileError(n.Msg("has " + std::to_string(p.scale.size()) + " scales for axis " +
                             std::to_string(axis) + " of length " +
                             std::to_string(data.shape[static_cast<size_t>(axis)])));
  p.axis = static_cast<int>(axis);
  return p;
}

// The index along `axis` of each flat element of a tensor of `shape` (0 when axis < 0).
size_t ChannelOf(const std::vector<int64_t>& shape, int axis, size_t flat) {
  if (axis < 0) return 0;
  size_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d)
    inner *= static_cast<size_t>(shape[d]);
  return flat / inner % static_cast<size_t>(shape[static_cast<size_t>(axis)]);
}

// A constant behind a DequantizeLinear: its params and q − zp per element.
struct QuantizedConstant {
  QuantParams params;
  std::vector<int64_t> shape;
  std::vector<int64_t> q;
};

// Q/DQ of constants evaluated as ONNX defines them (in float32, rounding half to even).
void FoldConstantQdq(ir::Graph& g, std::map<std::string, QuantizedConstant>* dequantized) {
  std::vector<ir::Node> kept;
  for (ir::Node& n : g.nodes) {
    if (!(IsQuantize(n) || IsDequantize(n)) || !g.IsConst(n.In(0))) {
      kept.push_back(std::move(n));
      continue;
    }
    const QuantParams p = ReadParams(g, n);
    const ir::Tensor& x = g.At(n.In(0));
    ir::Tensor out;
    out.name = n.outputs[0];
    out.shape = x.shape;
    out.shape_known = true;
    out.is_const = true;
    out.dtype = IsQuantize(n) ? p.dtype : ir::kFloat;
    QuantizedConstant qc{p, x.shape, {}};
    for (size_t i = 0; i < x.data.size(); ++i) {
      const size_t c = ChannelOf(x.shape, p.axis, i);
      const float s = static_cast<float>(p.scale[c]);
      const int64_t zp = p.zero_point[c];
      if (IsQuantize(n)) {
        const double q = std::nearbyint(static_cast<double>(static_cast<float>(x.data[i]) / s)) +
                         static_cast<double>(zp);
        out.data.push_back(
            std::min(static_cast<double>(p.hi), std::max(static_cast<double>(p.lo), q)));
      } else {
        qc.q.push_back(static_cast<int64_t>(x.data[i]) - zp);
        out.data.push_back(static_cast<double>(static_cast<float>(qc.q.back()) * s));
      }
    }
    if (IsDequantize(n) && p.dtype != ir::kInt32) (*dequantized)[out.name] = std::move(qc);
    g.tensors[out.name] = std::move(out);
  }
  g.nodes = std::move(kept);
}

// The axis of a node's weights that indexes its output channels, or -1 when not a weight reader.
int OutputChannelAxis(const ir::Node& n, size_t weight_rank) {
  if (n.op == "Conv") return 0;
  if (n.op == "Gemm") return n.Int("transB", 0) != 0 ? 0 : 1;
  if (n.op == "MatMul" && weight_rank == 2) return 1;
  return -1;
}

// Per output channel scales of each Conv/Gemm/MatMul whose weights are a dequantized int8
// constant quantized per tensor or along the output channels (others are requantized by the
// int8 rewrite's own rule).
void RecordWeightScales(const ir::Graph& g,
                        const std::map<std::string, QuantizedConstant>& dequantized,
                        QdqModel* out) {
  for (const ir::Node& n : g.nodes) {
    auto it = dequantized.find(n.In(1));
    if (it == dequantized.end()) continue;
    const QuantizedConstant& w = it->second;
    const int axis = OutputChannelAxis(n, w.shape.size());
    if (axis < 0 || static_cast<size_t>(axis) >= w.shape.size() ||
        (w.params.axis >= 0 && w.params.axis != axis))
      continue;
    const size_t channels = static_cast<size_t>(w.shape[static_cast<size_t>(axis)]);
    ModelWeightScales s;
    s.scale.resize(channels);
    s.max_abs_q.assign(channels, 0);
    for (size_t c = 0; c < channels; ++c)
      s.scale[c] = static_cast<float>(w.params.scale[w.params.axis < 0 ? 0 : c]);
    for (size_t i = 0; i < w.q.size(); ++i) {
      int32_t& m = s.max_abs_q[ChannelOf(w.shape, axis, i)];
      m = std::max(m, static_cast<int32_t>(std::llabs(w.q[i])));
    }
    out->weights[n.name] = std::move(s);
  }
}

// PyTorch's export puts a Cast to the quantized type between a QuantizeLinear and its
// DequantizeLinear: a no-op, removed. A Cast to another type changes the values: refused.
void DropCastsOfQuantized(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size();) {
    const ir::Node c = g.nodes[i];
    const int p = c.op == "Cast" ? g.ProducerOf(c.In(0)) : -1;
    if (p < 0 || !IsQuantize(g.nodes[static_cast<size_t>(p)])) {
      ++i;
      continue;
    }
    const int32_t type = ReadParams(g, g.nodes[static_cast<size_t>(p)]).dtype;
    if (c.Int("to", 0) != type)
      throw CompileError(c.Msg("casts the " + TypeName(type) + " output of '" +
                               g.nodes[static_cast<size_t>(p)].name + "' to " +
                               TypeName(static_cast<int32_t>(c.Int("to", 0)))));
    g.nodes.erase(g.nodes.begin() + static_cast<long>(i));
    g.ReplaceUses(c.outputs[0], c.In(0));
  }
}

// Renames tensor `from` (written by a node) to `to` everywhere.
void RenameTensor(ir::Graph& g, const std::string& from, const std::string& to) {
  for (ir::Node& n : g.nodes)
    for (std::string& o : n.outputs)
      if (o == from) o = to;
  g.ReplaceUses(from, to);
}

// Removes the DequantizeLinear at `index` and its QuantizeLinear's effect: readers of its output
// read the QuantizeLinear's float input again, whose quantization is recorded.
void RemoveActivationPair(ir::Graph& g, size_t index, QdqModel* out) {
  const ir::Node d = g.nodes[index];
  const int p = g.ProducerOf(d.In(0));
  if (p < 0 || !IsQuantize(g.nodes[static_cast<size_t>(p)]))
    throw CompileError(d.Msg("input '" + d.In(0) +
                             "' is neither a constant nor a QuantizeLinear's output (int8 graph "
                             "inputs are not supported)"));
  const ir::Node& q = g.nodes[static_cast<size_t>(p)];
  const QuantParams qp = ReadParams(g, q), dp = ReadParams(g, d);
  if (qp.scale.size() != 1)
    throw CompileError(q.Msg("an activation quantized per axis is not supported"));
  if (dp.scale.size() != 1 || static_cast<float>(qp.scale[0]) != static_cast<float>(dp.scale[0]) ||
      qp.zero_point[0] != dp.zero_point[0] || qp.dtype != dp.dtype)
    throw CompileError(d.Msg("its scale and zero point differ from those of its QuantizeLinear '" +
                             q.name + "' (" + Num(qp.scale[0]) + ", " +
                             std::to_string(qp.zero_point[0]) + ")"));
  const ActQuant a{static_cast<float>(qp.scale[0]),
                   static_cast<int32_t>(qp.zero_point[0] - (qp.dtype == ir::kUint8 ? 128 : 0))};
  std::string x = q.In(0);
  g.nodes.erase(g.nodes.begin() + static_cast<long>(index));
  if (g.IsGraphOutput(d.outputs[0])) {  // keep the output's name: the float tensor takes it
    if (g.ProducerOf(x) < 0)
      throw CompileError(d.Msg("a graph input dequantized into a graph output is not supported"));
    RenameTensor(g, x, d.outputs[0]);
    x = d.outputs[0];
  } else {
    g.ReplaceUses(d.outputs[0], x);
  }
  auto [it, inserted] = out->activations.emplace(x, a);
  if (!inserted && (it->second.scale != a.scale || it->second.zero_point != a.zero_point))
    throw CompileError(
        q.Msg("tensor '" + x + "' is quantized twice with different scales or zero points"));
}

}  // namespace

QdqModel ImportQdq(ir::Graph& g) {
  QdqModel out;
  for (const ir::Node& n : g.nodes) out.found = out.found || IsQuantize(n) || IsDequantize(n);
  if (!out.found) return out;
  std::map<std::string, QuantizedConstant> dequantized;
  FoldConstantQdq(g, &dequantized);
  RecordWeightScales(g, dequantized, &out);
  DropCastsOfQuantized(g);
  for (size_t i = 0; i < g.nodes.size();) {
    if (IsDequantize(g.nodes[i]))
      RemoveActivationPair(g, i, &out);
    else
      ++i;
  }
  for (const ir::Node& n :
       g.nodes) {  // every QuantizeLinear left was read by DequantizeLinears only
    if (!IsQuantize(n)) continue;
    if (g.IsGraphOutput(n.outputs[0]))
      throw CompileError(n.Msg("its int8 output '" + n.outputs[0] +
                               "' is a graph output (int8 graph outputs are not supported)"));
    for (const ir::Node& r : g.nodes)
      for (const std::string& in : r.inputs)
        if (in == n.outputs[0])
          throw CompileError(n.Msg("its int8 output is read by '" + r.name + "' (op '" + r.op +
                                   "'); only a DequantizeLinear may read it"));
  }
  std::vector<ir::Node> kept;
  for (ir::Node& n : g.nodes)
    if (!IsQuantize(n)) kept.push_back(std::move(n));
  g.nodes = std::move(kept);
  g.PruneUnusedTensors();
  return out;
}

}  // namespace edgefold::compiler::quant
