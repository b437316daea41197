#include "quant/quantize_model.h"

#include <algorithm>
#include <map>

namespace edgefold::compiler::quant {
namespace {

const char* OpTypeName(fb::OpType t) { return fb::EnumNameOpType(t); }

// Pools and the copies (Reshape, Transpose, Slice, Pad) write their input's scale and zero point.
bool KeepsInputScale(fb::OpType t) {
  return t == fb::OpType::Pool || t == fb::OpType::GlobalPool || t == fb::OpType::Reshape ||
         t == fb::OpType::Transpose || t == fb::OpType::Slice || t == fb::OpType::Pad;
}

// Walks the float ops in order, emitting the int8 graph; activation tensors get int8 or float
// copies on demand (a Quantize or Dequantize right before their first reader that needs one).
class Rewriter {
 public:
  Rewriter(const LoweredModel& f, const TensorQuants& quants) : quants_(quants) {
    out_.model = f;
    out_.model.ops.clear();
    quant_.resize(f.tensors.size());
    int8_.assign(f.tensors.size(), false);
  }

  Int8Model Run(const LoweredModel& f) {
    for (const fb::OperatorT& original : f.ops) {
      fb::OperatorT op = original;
      std::string blocker = Int8Blocker(op, out_.model);
      // Pools and copies keep their input's scale, and an int8 Softmax only pays after int8
      // logits (else a Quantize in front of it would only add error): int8 only where their
      // input already is.
      const bool follows = KeepsInputScale(op.type) || op.type == fb::OpType::Softmax;
      // A QDQ model quantizes their input itself: they are int8 where it does.
      if (blocker.empty() && follows && !int8_[static_cast<size_t>(op.inputs[0])] &&
          !(quants_.from_model && quants_.known[static_cast<size_t>(op.inputs[0])]))
        blocker = "its input is float (it keeps its producer's precision)";
      if (blocker.empty()) blocker = QuantBlocker(op, follows);
      if (!blocker.empty()) {
        EmitFloat(std::move(op), blocker);
        continue;
      }
      EmitInt8(std::move(op));
    }
    for (int& o :
         out_.model.outputs) {  // a QDQ model's output written by a float op: quantized first
      if (quants_.from_model && quants_.known[static_cast<size_t>(o)] &&
          !int8_[static_cast<size_t>(o)])
        o = Int8Version(o);
      o = FloatVersion(o);
    }
    return std::move(out_);
  }

 private:
  LoweredModel& m() { return out_.model; }

  ActQuant QuantOf(int t) const { return quants_.act[static_cast<size_t>(t)]; }

  bool Known(int t) const {
    return int8_[static_cast<size_t>(t)] || quants_.known[static_cast<size_t>(t)];
  }

  // Why `op` cannot take its quantization from `quants_` ("" when it can).
  std::string QuantBlocker(const fb::OperatorT& op, bool follows) const {
    const size_t activations = op.type == fb::OpType::Concat   ? op.inputs.size()
                               : op.type == fb::OpType::Binary ? 2
                                                               : 1;
    for (size_t i = 0; i < activations && i < op.inputs.size(); ++i)
      if (!Known(op.inputs[i]))
        return "its input '" + out_.model.tensors[static_cast<size_t>(op.inputs[i])].name +
               "' is not quantized in the model";
    const int y = op.outputs[0];
    if (op.type == fb::OpType::Softmax && quants_.from_model) {
      const ActQuant s = SoftmaxOutputQuant();
      if (!quants_.known[static_cast<size_t>(y)] || QuantOf(y).scale != s.scale ||
          QuantOf(y).zero_point != s.zero_point)
        return "its output is not quantized as the int8 Softmax's (scale 1/256, int8 zero point "
               "-128)";
    } else if (!follows && !quants_.known[static_cast<size_t>(y)]) {
      return "its output '" + out_.model.tensors[static_cast<size_t>(y)].name +
             "' is not quantized in the model";
    }
    if (follows && IsAverage(op) && quants_.from_model && !quants_.known[static_cast<size_t>(y)])
      return "its output is not quantized in the model, and an int8 average rounds to its input's "
             "scale";
    if (follows && Rescales(op) && IsAverage(op))
      return "the model quantizes its output unlike its input, and an int8 average keeps its "
             "input's scale";
    return "";
  }

  static bool IsAverage(const fb::OperatorT& op) {
    return (op.type == fb::OpType::Pool &&
            op.options.AsPoolOptions()->kind == fb::PoolKind::Average) ||
           (op.type == fb::OpType::GlobalPool &&
            op.options.AsGlobalPoolOptions()->kind == fb::PoolKind::Average);
  }

  // A QDQ model gives this pool's or copy's output another quantization than its input has.
  bool Rescales(const fb::OperatorT& op) const {
    const int x = op.inputs[0], y = op.outputs[0];
    if (!quants_.from_model || !quants_.known[static_cast<size_t>(y)]) return false;
    const ActQuant in = int8_[static_cast<size_t>(x)] ? quant_[static_cast<size_t>(x)] : QuantOf(x);
    return in.scale != QuantOf(y).scale || in.zero_point != QuantOf(y).zero_point;
  }

  const ModelWeightScales* WeightScalesOf(const fb::OperatorT& op) const {
    auto it = quants_.weights.find(op.name);
    return it == quants_.weights.end() ? nullptr : &it->second;
  }

  int NewTensor(int like, fb::DType dtype, const std::string& suffix) {
    LoweredTensor t;
    t.name = m().tensors[static_cast<size_t>(like)].name + suffix;
    t.shape = m().tensors[static_cast<size_t>(like)].shape;
    t.dtype = dtype;
    int64_t elems = 1;
    for (int64_t d : t.shape) elems *= d;
    t.bytes = static_cast<uint64_t>(elems) * (dtype == fb::DType::Int8 ? 1 : 4);
    m().tensors.push_back(std::move(t));
    quant_.resize(
        m().tensors.size());  // MakeInt8Op appends constants in between: keep indices aligned
    int8_.resize(m().tensors.size(), false);
    return static_cast<int>(m().tensors.size()) - 1;
  }

  void SetInt8(int t, const ActQuant& q) {
    LoweredTensor& lt = m().tensors[static_cast<size_t>(t)];
    lt.dtype = fb::DType::Int8;
    int64_t elems = 1;
    for (int64_t d : lt.shape) elems *= d;
    lt.bytes = static_cast<uint64_t>(elems);
    lt.scales = {q.scale};
    lt.zero_points = {q.zero_point};
    quant_[static_cast<size_t>(t)] = q;
    int8_[static_cast<size_t>(t)] = true;
  }

  void Boundary(fb::OpType type, int from, int to) {
    fb::OperatorT op;
    op.type = type;
    op.name = std::string(type == fb::OpType::Quantize ? "quantize:" : "dequantize:") +
              m().tensors[static_cast<size_t>(from)].name;
    op.inputs = {from};
    op.outputs = {to};
    if (type == fb::OpType::Quantize)
      op.options.Set(fb::QuantizeOptionsT());
    else
      op.options.Set(fb::DequantizeOptionsT());
    out_.boundaries.push_back(static_cast<int>(m().ops.size()));
    m().ops.push_back(std::move(op));
  }

  int Int8Version(int t) {
    if (int8_[static_cast<size_t>(t)]) return t;
    auto it = copies_.find(t);
    if (it != copies_.end()) return it->second;
    const int q = NewTensor(t, fb::DType::Int8, "/int8");
    SetInt8(q, QuantOf(t));
    Boundary(fb::OpType::Quantize, t, q);
    return copies_[t] = q;
  }

  int FloatVersion(int t) {
    if (!int8_[static_cast<size_t>(t)]) return t;
    auto it = copies_.find(t);
    if (it != copies_.end()) return it->second;
    const int f = NewTensor(t, fb::DType::Float32, "/float");
    Boundary(fb::OpType::Dequantize, t, f);
    return copies_[t] = f;
  }

  bool IsActivation(int t) { return t >= 0 && !m().tensors[static_cast<size_t>(t)].is_const; }

  void EmitFloat(fb::OperatorT op, const std::string& reason) {
    op.bn_adapt.reset();  // adaptation rewrites int8 requantization: a float op has none
    for (int& in : op.inputs) {
      if (!IsActivation(in)) continue;
      // A QDQ model's float op reads its input quantized and dequantized, also after a float op.
      if (quants_.from_model && quants_.known[static_cast<size_t>(in)]) in = Int8Version(in);
      in = FloatVersion(in);
    }
    out_.float_ops.push_back({op.name, OpTypeName(op.type), reason});
    m().ops.push_back(std::move(op));
  }

  // An int8 copy of t in quantization q: a LutInt8 of the identity (one table lookup per value).
  int Requantize(int t, const ActQuant& q, const std::string& name, int into = -1) {
    const int r = into >= 0 ? into : NewTensor(t, fb::DType::Int8, "/requant");
    fb::OperatorT op;
    op.type = fb::OpType::Activation;
    op.name = name;
    op.inputs = {t};
    op.outputs = {r};
    op.options.Set(fb::ActivationOptionsT());
    // Not a report layer: its output has no float counterpart; the Concat's layer covers it.
    MakeInt8Op(&op, &m(), &quant_[static_cast<size_t>(t)], q);
    SetInt8(r, q);
    m().ops.push_back(std::move(op));
    return r;
  }

  // Concat copies bytes: every input in the output's scale and zero point. The ranges give them
  // one (QuantizeModel unites them); an input that keeps another (a pool's or reshape's, which
  // follow their producer) is requantized first.
  void EmitConcat(fb::OperatorT op) {
    const int y = op.outputs[0];
    const ActQuant out = QuantOf(y);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      int t = Int8Version(op.inputs[i]);
      const ActQuant& q = quant_[static_cast<size_t>(t)];
      if (q.scale != out.scale || q.zero_point != out.zero_point)
        t = Requantize(t, out, op.name + "/requantize:" + m().tensors[static_cast<size_t>(t)].name);
      op.inputs[i] = t;
    }
    SetInt8(y, out);
    LayerInfo info;
    info.name = op.name;
    info.type = "Concat (int8)";
    info.output = y;
    info.in_scale = info.out_scale = out.scale;
    info.out_zero_point = out.zero_point;
    out_.layers.push_back(info);
    m().ops.push_back(std::move(op));
  }

  void EmitInt8(fb::OperatorT op) {
    if (op.type == fb::OpType::Concat) return EmitConcat(std::move(op));
    const size_t activations = op.type == fb::OpType::Binary ? 2 : 1;
    ActQuant in[2];
    for (size_t i = 0; i < activations; ++i) {
      op.inputs[i] = Int8Version(op.inputs[i]);
      in[i] = quant_[static_cast<size_t>(op.inputs[i])];
    }
    const int y = op.outputs[0];
    const bool same_scale = KeepsInputScale(op.type);
    const bool rescale =
        same_scale && Rescales(op);  // max and copies commute with the requantization
    if (rescale) op.outputs[0] = NewTensor(y, fb::DType::Int8, "/input_scale");
    const ActQuant out = same_scale                       ? in[0]
                         : op.type == fb::OpType::Softmax ? SoftmaxOutputQuant()
                                                          : QuantOf(y);
    SetInt8(op.outputs[0], out);
    if (same_scale) {
      LayerInfo info;
      info.name = op.name;
      info.output = y;
      info.in_scale = info.out_scale = out.scale;
      info.out_zero_point = out.zero_point;
      if (op.type == fb::OpType::Pool) {
        const fb::PoolOptionsT& p = *op.options.AsPoolOptions();
        fb::PoolInt8OptionsT o;
        o.kind = p.kind;
        o.kernel = p.kernel;
        o.strides = p.strides;
        o.dilations = p.dilations;
        o.pads = p.pads;
        o.count_include_pad = p.count_include_pad;
        op.type = fb::OpType::PoolInt8;
        op.options.Set(std::move(o));
        info.type = "PoolInt8";
      } else if (op.type == fb::OpType::GlobalPool) {
        fb::GlobalPoolInt8OptionsT o;
        o.kind = op.options.AsGlobalPoolOptions()->kind;
        op.type = fb::OpType::GlobalPoolInt8;
        op.options.Set(std::move(o));
        info.type = "GlobalPoolInt8";
      } else {  // a copy: the float op reads and writes int8 as bytes
        info.type = std::string(OpTypeName(op.type)) + " (int8)";
      }
      op.scratch_bytes = 0;
      if (rescale) {
        info.out_scale = QuantOf(y).scale;
        info.out_zero_point = QuantOf(y).zero_point;
      }
      out_.layers.push_back(info);
    } else {
      out_.layers.push_back(MakeInt8Op(&op, &m(), in, out, WeightScalesOf(op), quants_.weight_max));
    }
    const int written = op.outputs[0];
    const std::string name = op.name;
    m().ops.push_back(std::move(op));
    if (rescale) Requantize(written, QuantOf(y), name + "/requantize", y);
  }

  const TensorQuants& quants_;
  Int8Model out_;
  std::vector<ActQuant> quant_;
  std::vector<bool> int8_;
  std::map<int, int> copies_;  // tensor → its Quantize/Dequantize copy
};

}  // namespace

Int8Model QuantizeModel(const LoweredModel& float_model, const std::vector<Range>& observed,
                        int weight_max) {
  // A Concat's inputs and output share one range, the union of theirs (to a fixed point: a
  // tensor may feed several Concats), so that the int8 Concat is a copy.
  std::vector<Range> ranges = observed;
  for (bool changed = true; changed;) {
    changed = false;
    for (const fb::OperatorT& op : float_model.ops) {
      if (op.type != fb::OpType::Concat) continue;
      std::vector<int> members(op.inputs.begin(), op.inputs.end());
      members.push_back(op.outputs[0]);
      Range u = ranges[static_cast<size_t>(op.outputs[0])];
      for (int t : members) {
        if (t < 0 || !ranges[static_cast<size_t>(t)].observed) continue;
        const Range& r = ranges[static_cast<size_t>(t)];
        u.lo = std::min(u.lo, r.lo);
        u.hi = std::max(u.hi, r.hi);
      }
      for (int t : members) {
        if (t < 0 || !ranges[static_cast<size_t>(t)].observed) continue;
        Range& r = ranges[static_cast<size_t>(t)];
        if (r.lo == u.lo && r.hi == u.hi) continue;
        r.lo = u.lo;
        r.hi = u.hi;
        changed = true;
      }
    }
  }
  TensorQuants quants;
  quants.weight_max = weight_max;
  quants.act.resize(ranges.size());
  quants.known.resize(ranges.size());
  for (size_t t = 0; t < ranges.size(); ++t) {
    quants.known[t] = ranges[t].observed;
    if (ranges[t].observed) quants.act[t] = ChooseActQuant(ranges[t].lo, ranges[t].hi);
  }
  return QuantizeModel(float_model, quants);
}

Int8Model QuantizeModel(const LoweredModel& float_model, const TensorQuants& quants) {
  return Rewriter(float_model, quants).Run(float_model);
}

}  // namespace edgefold::compiler::quant
