#include "compile_options.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>

#include "py_arrays.h"
#include "py_errors.h"

namespace edgefold::python {
namespace {

template <class T>
void Read(const py::dict& d, const char* key, T* out) {
  if (!d.contains(key) || d[key].is_none()) return;
  try {
    *out = d[key].cast<T>();
  } catch (const py::cast_error&) {
    throw py::value_error(std::string("compile option '") + key +
                          "' has the wrong type: " + py::str(d[key]).cast<std::string>());
  }
}

// Float array option → values and shape (calibration data, input statistics data).
void ReadArray(const py::dict& d, const char* key, std::vector<float>* values,
               std::vector<int64_t>* shape) {
  if (!d.contains(key) || d[key].is_none()) return;
  const auto a = FloatArray(d[key], std::string("compile option '") + key + "'");
  values->assign(a.data(), a.data() + a.size());
  if (shape) shape->assign(a.shape(), a.shape() + a.ndim());
}

void ReadInputStatistics(const py::dict& d, compiler::CompileOptions* o) {
  std::vector<float> x;
  std::vector<int64_t> shape;
  ReadArray(d, "input_stats_from", &x, &shape);
  if (x.empty()) return;
  if (shape.size() < 2)
    throw py::value_error("compile option 'input_stats_from' needs data of shape [N, C, ...]");
  const size_t samples = size_t(shape[0]), channels = size_t(shape[1]);
  const size_t spatial = (samples * channels == 0) ? 0 : x.size() / (samples * channels);
  std::string error;
  if (!compiler::InputStatistics(x.data(), samples, channels, spatial, &o->input_mean,
                                 &o->input_std, &error))
    throw EdgefoldError("input_stats_from: " + error);
}

void ReadTraining(const py::dict& d, CompileRequest* r) {
  compiler::TrainingOptions& t = r->training;
  Read(d, "train", &r->train);
  Read(d, "batch", &t.batch);
  Read(d, "infer_batch", &t.inference_batch);
  Read(d, "frozen_statistics", &t.frozen_statistics);
  Read(d, "train_from", &t.train_from);
  Read(d, "trainable_last", &t.trainable_last);
  Read(d, "new_classes", &t.new_classes);
  Read(d, "recompute", &t.recompute);
  Read(d, "refold_weights", &t.refold_weights);
  std::string trainable = "bn", saved = "fp32";
  Read(d, "trainable", &trainable);
  if (!compiler::ParseTrainableSet(trainable, &t.trainable))
    throw py::value_error("compile option 'trainable' must be 'bn', 'bn+head' or 'all', got '" +
                          trainable + "'");
  Read(d, "saved_precision", &saved);
  using Saved = compiler::TrainingOptions::Saved;
  if (saved == "fp32")
    t.saved_precision = Saved::kFloat32;
  else if (saved == "fp16")
    t.saved_precision = Saved::kFloat16;
  else if (saved == "bf16")
    t.saved_precision = Saved::kBFloat16;
  else
    throw py::value_error(
        "compile option 'saved_precision' must be 'fp32', 'fp16' or 'bf16', got '" + saved + "'");
  ReadArray(d, "bn_calibration", &r->bn_calibration, nullptr);
  Read(d, "calibrate_batch", &r->calibrate_batch);
  Read(d, "calibrate_momentum", &r->calibrate_momentum);
}

}  // namespace

CompileRequest ReadCompileRequest(const py::dict& d) {
  CompileRequest r;
  compiler::CompileOptions& o = r.options;
  Read(d, "fold", &o.fold_batchnorm);
  Read(d, "verify", &o.verify);
  Read(d, "winograd", &o.winograd);
  Read(d, "transposed_weights", &o.transposed_weights);
  Read(d, "winograd_tile", &o.winograd_tile);
  Read(d, "winograd_min_channels", &o.winograd_min_channels);
  Read(d, "expansion_band_kb", &o.expansion_band_kb);
  Read(d, "threads", &o.threads);
  Read(d, "views", &o.share_views);
  Read(d, "input_shapes", &o.input_shapes);
  Read(d, "input_mean", &o.input_mean);
  Read(d, "input_std", &o.input_std);
  ReadInputStatistics(d, &o);
  Read(d, "quantize_int8", &o.quantize_int8);
  ReadArray(d, "calibration", &o.calibration, &o.calibration_shape);
  Read(d, "quantize_percentile", &o.quantize_percentile);
  Read(d, "quantize_mse", &o.quantize_mse);
  Read(d, "quantize_weight_bits", &o.quantize_weight_bits);
  Read(d, "io_int8", &o.io_int8);
  Read(d, "adaptable", &o.int8_adaptable);
  ReadTraining(d, &r);
  return r;
}

}  // namespace edgefold::python
