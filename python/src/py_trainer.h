// edgefold.Trainer's native half: an edgefold::Trainer in an arena it owns, over the .efb bytes
// of the Model it was made from (shared, never written).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgefold/trainer.h"
#include "file_io.h"
#include "model_bytes.h"
#include "py_arrays.h"
#include "py_model.h"

namespace edgefold::python {

namespace py = pybind11;

class PyTrainer {
 public:
  // `options`: lr, momentum, weight_decay, bn_momentum, seed, trainable ("model", "bn",
  // "bn+head", "all"), stats ("momentum" or "cumulative"). Throws EdgefoldError when the model
  // cannot be trained (compiled without train=True) or the options do not fit it.
  PyTrainer(const PyModel& model, const py::dict& options);
  PyTrainer(const PyTrainer&) = delete;
  PyTrainer& operator=(const PyTrainer&) = delete;

  // One SGD step on a batch x [N, ...] with labels [N] in [0, classes): (loss, correct).
  py::tuple Step(py::handle x, py::handle labels);
  // Label-free adaptation on stream_batch_ samples (one by default); returns their logits.
  // `options` overrides StreamOptions fields by name (momentum, momentum_decay, ...).
  py::array StreamStep(py::handle x, const py::dict& options);
  void AdaptStatistics(py::handle x);
  py::array Evaluate(py::handle x);
  void ResetStatistics();
  void ResetStream();
  size_t Refold();
  void SetOptions(const py::dict& options);
  py::dict GetOptions() const;
  py::dict LastStream() const;
  py::dict Parameters();  // name → copy of the values held in the arena
  // The adapted model (Trainer::ExportModel): a new model with the trained parameters and
  // statistics in place of the original constants.
  std::unique_ptr<PyModel> ExportedModel();

  size_t batch_size() const { return trainer_->batch_size(); }
  size_t num_classes() const { return trainer_->num_classes(); }
  size_t arena_bytes() const { return arena_.bytes; }

 private:
  std::string Describe(const char* call, Status status);
  static void Log(void* user, const char* message);
  // x as float32 of shape [n] + the sample shape (for n = 1 also the sample shape alone);
  // ValueError naming `call` (and ending with `hint`) otherwise.
  FloatArrayC Samples(py::handle x, size_t n, const char* call, const std::string& hint = "") const;
  void Check(const char* call, Status status);
  // Runs `work` under the trainer's mutex with the GIL released (a step in another thread holds
  // the mutex and needs the GIL back to return: taking the mutex with the GIL would deadlock).
  template <class Work>
  auto Locked(Work work) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    return work();
  }

  ModelBytes bytes_;
  std::string name_;
  std::vector<int64_t> sample_shape_;  // the model input's dims after the batch
  // Samples a StreamStep reads and writes logits for: the graph's batch, or with batch
  // statistics the training batch (the trainer runs the graph scaled to it; runtime behaviour,
  // trainer.cc's Forward copies its input tensor whole).
  size_t stream_batch_ = 1;
  size_t graph_batch_ = 1;  // the model input's leading dim
  tools::AlignedBuffer arena_;
  Trainer* trainer_ = nullptr;  // lives inside arena_
  TrainOptions options_;
  StreamReport stream_report_;
  std::vector<std::string> log_;
  std::mutex mutex_;  // one call at a time per trainer
};

}  // namespace edgefold::python
