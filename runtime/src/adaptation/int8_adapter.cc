// Int8Adapter (edgefold/int8_adapter.h): the interpreter first in the arena, then
//   [ State | Layer × L | per layer: bias, multiplier, shift (int32 × C), mean, var, eps_k2
//     (float × C), running sums (double × 2C) | scratch: Σacc, Σacc² (double × max C) ]
#include "edgefold/int8_adapter.h"

#include <cmath>
#include <cstring>
#include <new>

#include "adaptation/int8_accumulators.h"
#include "adaptation/int8_layer.h"
#include "base/fold_batchnorm.h"
#include "base/size_math.h"
#include "interpreter/graph_prepare.h"
#include "interpreter/interpreter_state.h"
#include "kernels/requant_multiplier.h"
#include "model/bn_adaptation_reader.h"

namespace edgefold {

using internal::CheckLayer;
using internal::Layer;
using internal::LayerArrayBytes;
using internal::NormalizeWithBatch;
using internal::ResetLayer;
using internal::SetChannel;

struct Int8Adapter::State {
  Interpreter* interpreter = nullptr;
  Interpreter::State* graph = nullptr;
  const uint8_t* model = nullptr;
  size_t model_bytes = 0;
  Layer* layers = nullptr;
  size_t num_layers = 0;
  double* sum = nullptr;  // scratch: Σacc and Σacc² of the layer being measured
  double* sum_sq = nullptr;
  alignas(Int8Adapter) unsigned char handle[sizeof(Int8Adapter)];  // the object Create returns
};

namespace {

// Bytes after the interpreter's arena for the model's adaptable ops (0 layers: 0).
struct Extent {
  size_t layers = 0, max_channels = 0, bytes = 0;
};

Extent MeasureExtent(const uint8_t* model, size_t num_ops) {
  Extent e;
  size_t arrays = 0;
  for (size_t i = 0; i < num_ops; ++i) {
    internal::BnAdaptationView a;
    if (!internal::ReadBnAdaptation(model, i, &a)) continue;
    size_t c = 0;
    for (const uint32_t n : {a.gamma_abs_count, a.beta_count, a.eps_k2_count})
      if (n > c) c = n;
    ++e.layers;
    e.max_channels = c > e.max_channels ? c : e.max_channels;
    arrays = AddSat(arrays, RoundUpSat(LayerArrayBytes(c), 8));
  }
  size_t bytes = RoundUpSat(sizeof(Int8Adapter::State), 8);
  bytes = AddSat(bytes, RoundUpSat(MulSat(e.layers, sizeof(Layer)), 8));
  bytes = AddSat(bytes, arrays);
  e.bytes = AddSat(bytes, MulSat(e.max_channels, 2 * sizeof(double)));
  return e;
}

Status InterpreterBytes(const uint8_t* model, size_t model_bytes, const Options& options,
                        size_t* bytes) {
  EDGEFOLD_RETURN_IF_ERROR(RequiredArenaBytes(model, model_bytes, bytes, options));
  *bytes = RoundUpSat(*bytes, kArenaAlignment);
  return Status::kOk;
}

// Layer i of the adapter from op i's record: its constants copied into the arena at *p (which
// advances), the interpreter's tensor table pointed at the copies.
Status AddLayer(Int8Adapter::State& s, Interpreter::State& g, size_t i,
                const internal::BnAdaptationView& adapt, uint8_t** p,
                internal::ErrorReporter& errors) {
  Layer& l = *new (&s.layers[s.num_layers]) Layer();
  const internal::OpDesc& desc = g.ops[i];
  l.op = static_cast<int32_t>(i);
  l.name = desc.name;
  l.bias_tensor = desc.inputs[2];
  l.multiplier_tensor = desc.inputs[3];
  l.shift_tensor = desc.inputs[4];
  for (size_t j = 0; j < s.num_layers; ++j)
    for (int32_t t :
         {s.layers[j].bias_tensor, s.layers[j].multiplier_tensor, s.layers[j].shift_tensor})
      if (t == l.bias_tensor || t == l.multiplier_tensor || t == l.shift_tensor) {
        errors.Report(
            "op '%s': shares its requantization constant '%s' with op '%s': cannot adapt both",
            l.name, g.tensors[t].name, s.layers[j].name);
        return Status::kInvalidModel;
      }
  const internal::TensorInfo& w = g.tensors[desc.inputs[1]];
  l.channels = g.tensors[l.bias_tensor].elems;
  l.gamma_abs = adapt.gamma_abs;
  l.beta = adapt.beta;
  l.model_eps_k2 = adapt.eps_k2;
  l.model_bias = reinterpret_cast<const int32_t*>(g.tensors[l.bias_tensor].data);
  l.model_multiplier = reinterpret_cast<const int32_t*>(g.tensors[l.multiplier_tensor].data);
  l.model_shift = reinterpret_cast<const int32_t*>(g.tensors[l.shift_tensor].data);
  l.w_scales = w.scales;
  l.per_channel = w.num_scales == l.channels && l.channels > 1;
  l.x_scale = g.tensors[desc.inputs[0]].scales[0];
  l.y_scale = g.tensors[desc.outputs[0]].scales[0];
  const size_t c = l.channels;
  l.bias = reinterpret_cast<int32_t*>(*p);
  l.multiplier = l.bias + c;
  l.shift = l.multiplier + c;
  l.mean = reinterpret_cast<float*>(l.shift + c);
  l.var = l.mean + c;
  l.eps_k2 = l.var + c;
  l.run_mean =
      reinterpret_cast<double*>(*p + RoundUpSat(c * (3 * sizeof(int32_t) + 3 * sizeof(float)), 8));
  l.run_var = l.run_mean + c;
  *p += RoundUpSat(LayerArrayBytes(c), 8);
  ResetLayer(l);
  // The ops read their constants through the tensor table at every Eval: point it at the copies.
  g.tensors[l.bias_tensor].data = reinterpret_cast<float*>(l.bias);
  g.tensors[l.multiplier_tensor].data = reinterpret_cast<float*>(l.multiplier);
  g.tensors[l.shift_tensor].data = reinterpret_cast<float*>(l.shift);
  ++s.num_layers;
  return Status::kOk;
}

}  // namespace

Status RequiredInt8AdapterArenaBytes(const uint8_t* model, size_t model_bytes, size_t* arena_bytes,
                                     const Options& options) {
  if (arena_bytes == nullptr) return Status::kInvalidArgument;
  size_t interpreter = 0;
  EDGEFOLD_RETURN_IF_ERROR(InterpreterBytes(model, model_bytes, options, &interpreter));
  internal::ErrorReporter errors(options.log, options.log_user);
  internal::ModelSummary summary;  // checked already by InterpreterBytes: this reads the op count
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckModel(model, model_bytes, errors, &summary));
  const size_t needed = AddSat(interpreter, MeasureExtent(model, summary.num_ops).bytes);
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckAddressable(needed, "adapter arena", errors));
  *arena_bytes = needed;
  return Status::kOk;
}

Status Int8Adapter::Create(const uint8_t* model, size_t model_bytes, void* arena,
                           size_t arena_bytes, const Options& options, Int8Adapter** out) {
  internal::ErrorReporter errors(options.log, options.log_user);
  if (out == nullptr) return Status::kInvalidArgument;
  *out = nullptr;
  size_t needed = 0, interpreter_bytes = 0;
  EDGEFOLD_RETURN_IF_ERROR(RequiredInt8AdapterArenaBytes(model, model_bytes, &needed, options));
  EDGEFOLD_RETURN_IF_ERROR(internal::CheckArenaBytes(needed, arena_bytes, "adapter arena", errors));
  EDGEFOLD_RETURN_IF_ERROR(InterpreterBytes(model, model_bytes, options, &interpreter_bytes));
  Interpreter* interp = nullptr;
  EDGEFOLD_RETURN_IF_ERROR(
      Interpreter::Create(model, model_bytes, arena, interpreter_bytes, options, &interp));
  Interpreter::State& g = Interpreter::State::Of(*interp);
  const Extent extent = MeasureExtent(model, g.summary.num_ops);
  if (extent.layers == 0) {
    errors.Report(
        "the model has no adaptable int8 layer (compile it with --quantize int8 --adaptable)");
    return Status::kInvalidArgument;
  }

  uint8_t* p = static_cast<uint8_t*>(arena) + interpreter_bytes;
  State* s = new (p) State();
  p += RoundUpSat(sizeof(State), 8);
  s->interpreter = interp;
  s->graph = &g;
  s->model = model;
  s->model_bytes = model_bytes;
  s->layers = reinterpret_cast<Layer*>(p);
  p += RoundUpSat(extent.layers * sizeof(Layer), 8);
  for (size_t i = 0; i < g.summary.num_ops; ++i) {
    internal::BnAdaptationView adapt;
    if (!internal::ReadBnAdaptation(model, i, &adapt)) continue;
    const internal::OpDesc& desc = g.ops[i];
    EDGEFOLD_RETURN_IF_ERROR(CheckLayer(adapt, desc, g.tensors, errors));
    EDGEFOLD_RETURN_IF_ERROR(AddLayer(*s, g, i, adapt, &p, errors));
  }
  s->sum = reinterpret_cast<double*>(p);
  s->sum_sq = s->sum + extent.max_channels;
  *out = new (s->handle) Int8Adapter(s);
  return Status::kOk;
}

Interpreter* Int8Adapter::interpreter() const { return state_->interpreter; }
size_t Int8Adapter::num_layers() const { return state_->num_layers; }

Status Int8Adapter::Adapt(const AdaptOptions& options) {
  State& s = *state_;
  Interpreter::State& g = *s.graph;
  if (!g.ready) return Status::kBadState;
  if (!(options.momentum > 0.0f && options.momentum <= 1.0f) &&
      options.mode == StatsMode::kMomentum) {
    g.errors.Report("adapt: momentum %g must be in (0, 1]", double(options.momentum));
    return Status::kInvalidArgument;
  }
  size_t next = 0;
  for (size_t i = 0; i < g.summary.num_ops; ++i) {
    internal::OpContext ctx{g.ops[i], g.tensors, *g.kernels, g.errors, &g.parallel};
    if (next < s.num_layers && s.layers[next].op == static_cast<int32_t>(i))
      NormalizeWithBatch(s.layers[next++], ctx, options, s.sum, s.sum_sq);
    EDGEFOLD_RETURN_IF_ERROR(g.op_kernels[i]->eval(ctx));
  }
  // Inference from now on: the running statistics.
  for (size_t i = 0; i < s.num_layers; ++i) {
    Layer& l = s.layers[i];
    if (l.batches == 0) continue;
    for (size_t c = 0; c < l.channels; ++c)
      if (!SetChannel(l, c, l.mean[c], l.var[c])) ++l.held;
  }
  return Status::kOk;
}

void Int8Adapter::Reset() {
  for (size_t i = 0; i < state_->num_layers; ++i) ResetLayer(state_->layers[i]);
}

Status Int8Adapter::SetStatistics(size_t layer, const float* mean, const float* var) {
  State& s = *state_;
  if (layer >= s.num_layers || mean == nullptr || var == nullptr) return Status::kInvalidArgument;
  Layer& l = s.layers[layer];
  for (size_t c = 0; c < l.channels; ++c)
    if (!std::isfinite(mean[c]) || !std::isfinite(var[c]) || var[c] < 0.0f) {
      s.graph->errors.Report("op '%s': statistics of channel %zu: mean %g, variance %g", l.name, c,
                             double(mean[c]), double(var[c]));
      return Status::kInvalidArgument;
    }
  l.held = 0;
  for (size_t c = 0; c < l.channels; ++c) {
    l.mean[c] = mean[c];
    l.var[c] = var[c];
    if (!SetChannel(l, c, mean[c], var[c])) ++l.held;
  }
  return Status::kOk;
}

AdaptedLayer Int8Adapter::layer(size_t i) const {
  AdaptedLayer v;
  if (i >= state_->num_layers) return v;
  const Layer& l = state_->layers[i];
  v.name = l.name;
  v.channels = l.channels;
  v.mean = l.mean;
  v.var = l.var;
  v.batches = l.batches;
  v.bias = l.bias;
  v.multiplier = l.multiplier;
  v.shift = l.shift;
  v.bias_tensor = l.bias_tensor;
  v.multiplier_tensor = l.multiplier_tensor;
  v.shift_tensor = l.shift_tensor;
  v.eps_k2 = l.eps_k2;
  v.held_channels = l.held;
  return v;
}

Status Int8Adapter::ExportModel(uint8_t* out, size_t out_bytes) const {
  const State& s = *state_;
  if (out == nullptr || out_bytes < s.model_bytes) return Status::kInvalidArgument;
  std::memcpy(out, s.model, s.model_bytes);
  const auto offset = [&](const void* in_model) {
    return static_cast<size_t>(static_cast<const uint8_t*>(in_model) - s.model);
  };
  for (size_t i = 0; i < s.num_layers; ++i) {
    const Layer& l = s.layers[i];
    std::memcpy(out + offset(l.model_bias), l.bias, l.channels * sizeof(int32_t));
    std::memcpy(out + offset(l.model_multiplier), l.multiplier, l.channels * sizeof(int32_t));
    std::memcpy(out + offset(l.model_shift), l.shift, l.channels * sizeof(int32_t));
    std::memcpy(out + offset(l.model_eps_k2), l.eps_k2, l.channels * sizeof(float));
  }
  return Status::kOk;
}

}  // namespace edgefold
