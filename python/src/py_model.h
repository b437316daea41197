// edgefold.Model's native half: a compiled model that owns its .efb bytes (shared with the
// Trainers made from it) and a 64-byte aligned arena, with an Interpreter living in that arena.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "edgefold/thread_pool.h"
#include "file_io.h"
#include "model_bytes.h"

namespace edgefold::python {

namespace py = pybind11;

class PyModel {
 public:
  // Verifies the bytes and creates the interpreter (one thread); throws EdgefoldError with the
  // runtime's messages when the runtime refuses the model. `name` is for messages.
  PyModel(ModelBytes bytes, std::string name);
  PyModel(const PyModel&) = delete;
  PyModel& operator=(const PyModel&) = delete;

  // One array per graph input (or one tuple of them); returns an array, or a tuple for several
  // outputs. `threads` > 1 splits each op over a pool the model keeps until another count is
  // asked for. Int8 outputs are int8 arrays unless `dequantize`. Releases the GIL while it runs.
  py::object Run(py::args inputs, size_t threads, bool dequantize);

  const ModelBytes& bytes() const { return bytes_; }
  const std::string& name() const { return name_; }
  py::bytes Bytes() const;
  size_t required_arena_bytes() const { return arena_.bytes; }
  uint64_t planned_arena_bytes() const;
  uint64_t weights_bytes() const;
  bool trainable() const;
  std::string kernel_isa() const;
  py::list Inputs() const;  // [(name, shape, dtype, scale, zero_point)]
  py::list Outputs() const;
  py::list Ops() const;  // [(name, type)]

 private:
  void Open(size_t threads);  // (re)creates the interpreter with `threads` threads
  std::string Describe(const char* call, Status status);
  static void Log(void* user, const char* message);
  // Fills fresh output arrays, then runs every slice under the model's mutex without the GIL.
  py::object RunLocked(const std::vector<py::array>& arrays, size_t slices, size_t threads,
                       bool dequantize);

  ModelBytes bytes_;
  std::string name_;
  tools::AlignedBuffer arena_;
  std::unique_ptr<ThreadPool> pool_;
  size_t threads_ = 0;
  Interpreter* interpreter_ = nullptr;  // lives inside arena_
  // The graph's inputs and outputs (names and shapes point into the model bytes; data is not
  // read from these copies), for checks and output arrays made before the run takes the mutex.
  std::vector<TensorView> inputs_, outputs_;
  std::vector<std::pair<std::string, std::string>> ops_;  // (name, type) in execution order
  std::string kernel_isa_;
  std::vector<std::string> log_;
  std::mutex mutex_;  // one run at a time per model
};

// Describes tensor `v` for Inputs()/Outputs().
py::tuple TensorInfo(const TensorView& v);

}  // namespace edgefold::python
