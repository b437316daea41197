#include "quant/quantize.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "error.h"
#include "quant/io_int8.h"
#include "quant/quantize_model.h"

namespace edgefold::compiler::quant {
namespace {

std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// [N, dims after the batch] with N a multiple of the graph's batch; every value finite.
Samples CheckCalibration(const LoweredModel& m, const CompileOptions& o, const std::string& name) {
  const std::string what = "model '" + name + "': calibration data ";
  if (m.inputs.size() != 1)
    throw CompileError(what + "feeds one graph input; this model has " +
                       std::to_string(m.inputs.size()));
  const std::vector<int64_t>& in = m.tensors[static_cast<size_t>(m.inputs[0])].shape;
  const std::vector<int64_t>& c = o.calibration_shape;
  bool ok = !in.empty() && c.size() == in.size() && c[0] > 0 && c[0] % in[0] == 0;
  for (size_t d = 1; ok && d < in.size(); ++d) ok = c[d] == in[d];
  if (!ok) {
    std::vector<int64_t> want = in;
    if (!want.empty()) want[0] = -1;
    throw CompileError(what + "has shape " + Dims(c) + "; input '" +
                       m.tensors[static_cast<size_t>(m.inputs[0])].name + "' is " + Dims(in) +
                       ", so it needs " + Dims(want) + " (N a multiple of " +
                       std::to_string(in.empty() ? 1 : in[0]) + ")");
  }
  for (size_t i = 0; i < o.calibration.size(); ++i)
    if (!std::isfinite(o.calibration[i]))
      throw CompileError(what + "holds " + (std::isnan(o.calibration[i]) ? "NaN" : "Inf") +
                         " at flat index " + std::to_string(i) + " (sample " +
                         std::to_string(i / (o.calibration.size() / static_cast<size_t>(c[0]))) +
                         ")");
  Samples s;
  s.data = o.calibration.data();
  s.run_elems = o.calibration.size() / static_cast<size_t>(c[0]) * static_cast<size_t>(in[0]);
  s.count = static_cast<size_t>(c[0] / in[0]);
  return s;
}

struct Power {
  double signal = 0, noise = 0;
  void Add(const float* f, const float* q, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      signal += static_cast<double>(f[i]) * f[i];
      noise += (static_cast<double>(f[i]) - q[i]) * (static_cast<double>(f[i]) - q[i]);
    }
  }
  double Db() const {
    return noise > 0 ? 10.0 * std::log10(signal / noise) : std::numeric_limits<double>::infinity();
  }
};

size_t ArgMax(const float* x, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

// Runs the float model and the int8 model (each layer's output dequantized as an extra graph
// output) on the samples: per-layer SQNR, the first output's SQNR and top-1 agreement.
void Measure(const LoweredModel& f, const Int8Model& q, const Samples& samples,
             const std::string& name, QuantReport* r) {
  std::vector<int> float_outs{f.outputs[0]}, int8_outs{q.model.outputs[0]};
  LoweredModel probe = q.model;
  for (const LayerInfo& l : q.layers) {
    float_outs.push_back(l.output);
    LoweredTensor t;
    t.name = probe.tensors[static_cast<size_t>(l.output)].name + "/probe";
    t.shape = probe.tensors[static_cast<size_t>(l.output)].shape;
    t.bytes = probe.tensors[static_cast<size_t>(l.output)].bytes * 4;
    probe.tensors.push_back(t);
    const int probe_out = static_cast<int>(probe.tensors.size()) - 1;
    fb::OperatorT op;
    op.type = fb::OpType::Dequantize;
    op.name = "probe:" + l.name;
    op.inputs = {l.output};
    op.outputs = {probe_out};
    op.options.Set(fb::DequantizeOptionsT());
    probe.ops.push_back(std::move(op));
    int8_outs.push_back(probe_out);
  }
  std::vector<std::vector<std::vector<float>>> ref(
      samples.count, std::vector<std::vector<float>>(float_outs.size()));
  std::string error = RunSamples(
      f, float_outs, samples,
      [&](size_t run, size_t o, const float* x, size_t n) { ref[run][o].assign(x, x + n); });
  std::vector<Power> power(int8_outs.size());
  size_t agree = 0, rows = 0;
  const std::vector<int64_t>& out_shape = f.tensors[static_cast<size_t>(f.outputs[0])].shape;
  const size_t classes = static_cast<size_t>(out_shape.empty() ? 1 : out_shape.back());
  if (error.empty())
    error =
        RunSamples(probe, int8_outs, samples, [&](size_t run, size_t o, const float* x, size_t n) {
          const std::vector<float>& want = ref[run][o];
          power[o].Add(want.data(), x, std::min(n, want.size()));
          if (o != 0 || classes < 2) return;
          for (size_t row = 0; row + classes <= n; row += classes, ++rows)
            agree += ArgMax(want.data() + row, classes) == ArgMax(x + row, classes);
        });
  if (!error.empty()) throw CompileError("model '" + name + "': int8 check run failed: " + error);
  r->output_sqnr_db = power[0].Db();
  r->top1_agreement = rows ? static_cast<double>(agree) / static_cast<double>(rows) : 0.0;
  for (size_t i = 0; i < r->layers.size(); ++i) r->layers[i].sqnr_db = power[i + 1].Db();
}

// Drops the tensors nothing reads or writes any more (the float weights the int8 ops replaced)
// and renumbers the rest.
LoweredModel DropUnused(LoweredModel m) {
  std::vector<int> index(m.tensors.size(), -1);
  const auto mark = [&](int t) {
    if (t >= 0) index[static_cast<size_t>(t)] = 0;
  };
  for (const fb::OperatorT& op : m.ops) {
    for (int t : op.inputs) mark(t);
    for (int t : op.outputs) mark(t);
  }
  for (int t : m.inputs) mark(t);
  for (int t : m.outputs) mark(t);
  LoweredModel out = m;
  out.tensors.clear();
  for (size_t t = 0; t < m.tensors.size(); ++t)
    if (index[t] == 0) {
      index[t] = static_cast<int>(out.tensors.size());
      out.tensors.push_back(std::move(m.tensors[t]));
    }
  const auto remap = [&](std::vector<int32_t>& list) {
    for (int32_t& t : list)
      if (t >= 0) t = index[static_cast<size_t>(t)];
  };
  for (fb::OperatorT& op : out.ops) {
    remap(op.inputs);
    remap(op.outputs);
  }
  remap(out.inputs);
  remap(out.outputs);
  return out;
}

std::string FormatPercent(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", p);
  return text;
}

// The report's rewrite part: layers (with the observed range when `ranges`), float ops, boundaries.
void ReportLayers(const Int8Model& q, const std::vector<Range>* ranges, QuantReport* report) {
  QuantReport& r = *report;
  r.ran = true;
  r.boundaries = static_cast<int>(q.boundaries.size());
  for (const FloatOp& f : q.float_ops)
    r.float_ops.push_back(f.name + " (" + f.type + "): " + f.reason);
  for (const LayerInfo& l : q.layers) {
    QuantLayerReport lr;
    lr.name = l.name;
    lr.type = l.type;
    lr.in_scale = l.in_scale;
    lr.out_scale = l.out_scale;
    lr.out_zero_point = l.out_zero_point;
    lr.w_scale_min = l.w_scale_min;
    lr.w_scale_max = l.w_scale_max;
    lr.clip_lo = (-128 - l.out_zero_point) * static_cast<double>(l.out_scale);
    lr.clip_hi = (127 - l.out_zero_point) * static_cast<double>(l.out_scale);
    if (ranges) {
      const Range& range = (*ranges)[static_cast<size_t>(l.output)];
      lr.range_min = range.min;
      lr.range_max = range.max;
    } else {  // the model's own quantization: the range it represents
      lr.range_min = lr.clip_lo;
      lr.range_max = lr.clip_hi;
    }
    lr.act_min = l.act_min;
    lr.act_max = l.act_max;
    r.layers.push_back(lr);
  }
}

// With float or int8 I/O (io_int8.h), then the tensors nothing reads any more dropped.
LoweredModel Finish(Int8Model q, bool io_int8, QuantReport* r) {
  int removed = 0;
  r->io_int8 = io_int8;
  r->io = MakeIoInt8(&q.model, io_int8, &removed);
  r->boundaries -= removed;
  LoweredModel out = DropUnused(std::move(q.model));
  for (const fb::OperatorT& op : out.ops) r->adaptable_layers += op.bn_adapt != nullptr;
  return out;
}

}  // namespace

LoweredModel QuantizeInt8(const LoweredModel& float_model, const CompileOptions& options,
                          const std::string& name, QuantReport* report) {
  if (!(options.quantize_percentile > 50.0 && options.quantize_percentile <= 100.0))
    throw CompileError("model '" + name + "': --quantize-percentile must be in (50, 100]");
  if (options.quantize_mse && options.quantize_percentile < 100.0)
    throw CompileError("model '" + name +
                       "': --quantize-clip mse and --quantize-percentile do not combine");
  if (options.quantize_weight_bits != 7 && options.quantize_weight_bits != 8)
    throw CompileError("model '" + name + "': --quantize-weight-bits must be 7 or 8, got " +
                       std::to_string(options.quantize_weight_bits));
  const Samples samples = CheckCalibration(float_model, options, name);
  const std::vector<Range> ranges =
      ObserveRanges(float_model, samples, options.quantize_percentile, options.quantize_mse, name);
  Int8Model q = QuantizeModel(float_model, ranges, options.quantize_weight_bits == 7 ? 64 : 127);
  QuantReport& r = *report;
  r.runs = samples.count;
  r.clipping = options.quantize_mse ? "mse"
               : options.quantize_percentile < 100.0
                   ? "percentiles " + FormatPercent(100.0 - options.quantize_percentile) + ".." +
                         FormatPercent(options.quantize_percentile)
                   : "min/max";
  ReportLayers(q, &ranges, &r);
  Measure(float_model, q, samples, name, &r);  // with float I/O: the int8 graph inside is the same
  return Finish(std::move(q), options.io_int8, &r);
}

LoweredModel QuantizeQdq(const LoweredModel& float_model, const QdqModel& qdq,
                         const CompileOptions& options, QuantReport* report) {
  TensorQuants quants;
  quants.from_model = true;
  quants.weights = qdq.weights;
  quants.act.resize(float_model.tensors.size());
  quants.known.resize(float_model.tensors.size());
  for (size_t t = 0; t < float_model.tensors.size(); ++t) {
    auto it = qdq.activations.find(float_model.tensors[t].name);
    if (it == qdq.activations.end() || float_model.tensors[t].is_const) continue;
    quants.act[t] = it->second;
    quants.known[t] = true;
  }
  const Int8Model q = QuantizeModel(float_model, quants);
  report->clipping = "the model's own scales";
  ReportLayers(q, nullptr, report);
  return Finish(q, options.io_int8, report);
}

}  // namespace edgefold::compiler::quant
