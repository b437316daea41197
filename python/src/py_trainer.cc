#include "py_trainer.h"

#include <pybind11/stl.h>

#include <cstring>

#include "py_arrays.h"
#include "py_errors.h"

namespace edgefold::python {
namespace {

Trainable ParseTrainable(const std::string& text) {
  if (text == "model") return Trainable::kModel;
  if (text == "bn") return Trainable::kBatchNorm;
  if (text == "bn+head") return Trainable::kBatchNormAndHead;
  if (text == "all") return Trainable::kAll;
  throw py::value_error("Trainer: trainable must be 'model', 'bn', 'bn+head' or 'all', got '" +
                        text + "'");
}

template <class T>
void Read(const py::dict& d, const char* key, T* out) {
  if (!d.contains(key) || d[key].is_none()) return;
  try {
    *out = d[key].cast<T>();
  } catch (const py::cast_error&) {
    throw py::value_error(std::string("Trainer option '") + key + "' has the wrong type");
  }
}

void ReadTrainOptions(const py::dict& d, TrainOptions* o) {
  Read(d, "lr", &o->learning_rate);
  Read(d, "momentum", &o->momentum);
  Read(d, "weight_decay", &o->weight_decay);
  Read(d, "bn_momentum", &o->bn_momentum);
  Read(d, "seed", &o->seed);
  if (d.contains("trainable")) o->trainable = ParseTrainable(d["trainable"].cast<std::string>());
  if (d.contains("stats")) {
    const std::string stats = d["stats"].cast<std::string>();
    if (stats != "momentum" && stats != "cumulative")
      throw py::value_error("Trainer: stats must be 'momentum' or 'cumulative', got '" + stats +
                            "'");
    o->stats_mode = stats == "momentum" ? StatsMode::kMomentum : StatsMode::kCumulativeAverage;
  }
}

}  // namespace

void PyTrainer::Log(void* user, const char* message) {
  static_cast<PyTrainer*>(user)->log_.emplace_back(message);
}

std::string PyTrainer::Describe(const char* call, Status status) {
  std::string text = name_ + ": " + call + " failed: " + StatusName(status);
  for (const std::string& line : log_) text += "\n  " + line;
  log_.clear();
  return text;
}

void PyTrainer::Check(const char* call, Status status) {
  if (status != Status::kOk) throw EdgefoldError(Describe(call, status));
}

PyTrainer::PyTrainer(const PyModel& model, const py::dict& options)
    : bytes_(model.bytes()), name_(model.name()) {
  ReadTrainOptions(options, &options_);
  const py::list inputs = model.Inputs();
  const auto shape = inputs.size() == 1
                         ? inputs[0].cast<py::tuple>()[1].cast<std::vector<int64_t>>()
                         : std::vector<int64_t>();
  if (shape.empty()) throw EdgefoldError(name_ + ": training needs a model with one batched input");
  sample_shape_.assign(shape.begin() + 1, shape.end());
  if (!model.trainable())
    throw EdgefoldError(name_ + ": the model has no training section: compile it with train=True");
  Options runtime;
  runtime.log = &PyTrainer::Log;
  runtime.log_user = this;
  size_t arena_bytes = 0;
  Check("RequiredTrainingArenaBytes", RequiredTrainingArenaBytes(bytes_->data.get(), bytes_->bytes,
                                                                 options_, &arena_bytes, runtime));
  arena_ = tools::AllocateAligned(arena_bytes);
  if (!arena_.data) throw std::bad_alloc();
  Check("Trainer::Create", Trainer::Create(bytes_->data.get(), bytes_->bytes, arena_.data.get(),
                                           arena_.bytes, options_, runtime, &trainer_));
  graph_batch_ = static_cast<size_t>(shape[0]);
  stream_batch_ = graph_batch_;  // StreamStep adapts on the graph's batch
}

FloatArrayC PyTrainer::Samples(py::handle x, size_t n, const char* call,
                               const std::string& hint) const {
  auto a = FloatArray(x, std::string(call) + ": x");
  std::vector<int64_t> want = {int64_t(n)};
  want.insert(want.end(), sample_shape_.begin(), sample_shape_.end());
  const std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
  if (n == 1 && got == sample_shape_) return a;  // one sample without its batch dim: same bytes
  if (got != want)
    throw py::value_error(std::string(call) + ": x must be float32 of shape " + ShapeText(want) +
                          ", got shape " + ShapeText(got) + hint);
  return a;
}

py::tuple PyTrainer::Step(py::handle x, py::handle labels) {
  const size_t n = trainer_->batch_size();
  auto xs = Samples(x, n, "step");
  py::array y = ToNumpy(labels);
  if (y.dtype().kind() != 'i' && y.dtype().kind() != 'u')
    throw py::value_error("step: labels must be integers, got " +
                          py::str(y.dtype()).cast<std::string>());
  // Range-checked as int64 before narrowing, so no large label wraps into range.
  const auto y64 = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(y);
  if (y64.ndim() != 1 || size_t(y64.size()) != n)
    throw py::value_error("step: labels must have shape [" + std::to_string(n) +
                          "] (the training batch)");
  std::vector<int32_t> y32(n);
  for (size_t i = 0; i < n; ++i) {
    if (y64.data()[i] < 0 || uint64_t(y64.data()[i]) >= trainer_->num_classes())
      throw py::value_error("step: label " + std::to_string(y64.data()[i]) + " at " +
                            std::to_string(i) + " is outside [0, " +
                            std::to_string(trainer_->num_classes()) + ")");
    y32[i] = static_cast<int32_t>(y64.data()[i]);
  }
  float loss = 0;
  int correct = 0;
  const Status st =
      Locked([&] { return trainer_->TrainStep(xs.data(), y32.data(), &loss, &correct); });
  Check("TrainStep", st);
  return py::make_tuple(loss, correct);
}

py::array PyTrainer::StreamStep(py::handle x, const py::dict& options) {
  StreamOptions so;
  Read(options, "momentum", &so.momentum);
  Read(options, "momentum_decay", &so.momentum_decay);
  Read(options, "momentum_min", &so.momentum_min);
  Read(options, "prior", &so.prior);
  Read(options, "variance_floor", &so.variance_floor);
  Read(options, "window", &so.window);
  Read(options, "entropy_rise", &so.entropy_rise);
  auto xs = Samples(x, stream_batch_, "stream_step");
  py::array_t<float> logits(
      std::vector<int64_t>{int64_t(stream_batch_), int64_t(trainer_->num_classes())});
  float* out = logits.mutable_data();
  const Status st =
      Locked([&] { return trainer_->StreamStep(xs.data(), out, so, &stream_report_); });
  Check("StreamStep", st);
  return logits;
}

void PyTrainer::AdaptStatistics(py::handle x) {
  auto xs = Samples(x, trainer_->batch_size(), "adapt_statistics");
  const Status st = Locked([&] { return trainer_->AdaptStatistics(xs.data()); });
  Check("AdaptStatistics", st);
}

py::array PyTrainer::Evaluate(py::handle x) {
  const size_t n = trainer_->batch_size();
  auto xs = Samples(x, n, "evaluate");
  py::array_t<float> logits(std::vector<int64_t>{int64_t(n), int64_t(trainer_->num_classes())});
  float* out = logits.mutable_data();
  const Status st = Locked([&] { return trainer_->Evaluate(xs.data(), out); });
  Check("Evaluate", st);
  return logits;
}

void PyTrainer::ResetStatistics() {
  Locked([&] { trainer_->ResetStatistics(); });
}
void PyTrainer::ResetStream() {
  Locked([&] { trainer_->ResetStream(); });
}
size_t PyTrainer::Refold() {
  return Locked([&] { return trainer_->Refold(); });
}

void PyTrainer::SetOptions(const py::dict& options) {
  TrainOptions o = options_;
  ReadTrainOptions(options, &o);
  if (o.trainable != options_.trainable)
    throw py::value_error("Trainer: the trainable set is fixed at creation");
  options_ = o;
  Locked([&] { trainer_->set_options(options_); });
}

py::dict PyTrainer::GetOptions() const {
  py::dict d;
  d["lr"] = options_.learning_rate;
  d["momentum"] = options_.momentum;
  d["weight_decay"] = options_.weight_decay;
  d["bn_momentum"] = options_.bn_momentum;
  d["seed"] = options_.seed;
  d["trainable"] = TrainableName(options_.trainable);
  d["stats"] = options_.stats_mode == StatsMode::kMomentum ? "momentum" : "cumulative";
  return d;
}

py::dict PyTrainer::LastStream() const {
  py::dict d;
  d["entropy"] = stream_report_.entropy;
  d["reset"] = stream_report_.reset;
  d["resets"] = stream_report_.resets;
  d["samples"] = stream_report_.samples;
  return d;
}

py::dict PyTrainer::Parameters() {
  std::vector<std::pair<std::string, std::vector<float>>> copies;
  Locked([&] {
    for (size_t i = 0; i < trainer_->num_parameters(); ++i) {
      const ParameterView p = trainer_->parameter(i);
      copies.emplace_back(p.name, std::vector<float>(p.data, p.data + p.elems));
    }
  });
  py::dict d;
  for (auto& [name, values] : copies)
    d[py::str(name)] = py::array_t<float>(values.size(), values.data());
  return d;
}

std::unique_ptr<PyModel> PyTrainer::ExportedModel() {
  auto buffer =
      std::make_shared<tools::AlignedBuffer>(tools::AllocateAligned(trainer_->model_bytes()));
  if (!buffer->data) throw std::bad_alloc();
  const Status st =
      Locked([&] { return trainer_->ExportModel(buffer->data.get(), buffer->bytes); });
  Check("ExportModel", st);
  return std::make_unique<PyModel>(std::move(buffer), name_ + " (adapted)");
}

}  // namespace edgefold::python
