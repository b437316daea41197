#include "py_model.h"

#include <cstring>

#include "edgefold/model_generated.h"
#include "py_arrays.h"
#include "py_errors.h"

namespace edgefold::python {

PyModel::PyModel(ModelBytes bytes, std::string name)
    : bytes_(std::move(bytes)), name_(std::move(name)) {
  Open(1);
}

void PyModel::Log(void* user, const char* message) {
  static_cast<PyModel*>(user)->log_.emplace_back(message);
}

std::string PyModel::Describe(const char* call, Status status) {
  std::string text = name_ + ": " + call + " failed: " + StatusName(status);
  for (const std::string& line : log_) text += "\n  " + line;
  log_.clear();
  return text;
}

void PyModel::Open(size_t threads) {
  interpreter_ = nullptr;
  pool_.reset();
  Options options;
  options.log = &PyModel::Log;
  options.log_user = this;
  if (threads > 1) {
    pool_ = std::make_unique<ThreadPool>(threads);
    pool_->Configure(&options);
  }
  const uint8_t* model = bytes_->data.get();
  size_t arena_bytes = 0;
  Status st = RequiredArenaBytes(model, bytes_->bytes, &arena_bytes, options);
  if (st != Status::kOk) throw EdgefoldError(Describe("loading the model", st));
  if (arena_.bytes != arena_bytes) {
    arena_ = tools::AllocateAligned(arena_bytes);
    if (!arena_.data) throw std::bad_alloc();
  }
  st = Interpreter::Create(model, bytes_->bytes, arena_.data.get(), arena_.bytes, options,
                           &interpreter_);
  if (st != Status::kOk) {
    interpreter_ = nullptr;
    throw EdgefoldError(Describe("Interpreter::Create", st));
  }
  threads_ = threads;
  inputs_.clear();
  outputs_.clear();
  for (size_t i = 0; i < interpreter_->num_inputs(); ++i) inputs_.push_back(interpreter_->input(i));
  for (size_t o = 0; o < interpreter_->num_outputs(); ++o)
    outputs_.push_back(interpreter_->output(o));
  ops_.clear();
  for (size_t i = 0; i < interpreter_->num_ops(); ++i)
    ops_.emplace_back(interpreter_->op_name(i), interpreter_->op_type(i));
  kernel_isa_ = interpreter_->kernel_isa_name();
}

py::object PyModel::Run(py::args args, size_t threads, bool dequantize) {
  if (threads < 1) throw py::value_error("run: threads must be at least 1");
  py::tuple inputs = args;
  const size_t n = inputs_.size();
  if (inputs.size() == 1 && n > 1 &&
      (py::isinstance<py::tuple>(inputs[0]) || py::isinstance<py::list>(inputs[0])))
    inputs = py::tuple(py::object(inputs[0]));  // run((a, b)) as run(a, b)
  if (inputs.size() != n)
    throw py::value_error(name_ + ": the model has " + std::to_string(n) + " input(s), got " +
                          std::to_string(inputs.size()) + " array(s)");
  std::vector<py::array> arrays;
  size_t slices = 0;
  for (size_t i = 0; i < n; ++i) {
    const TensorView& v = inputs_[i];
    size_t k = 0;
    arrays.push_back(
        CheckedInput(inputs[i], v, "input " + std::to_string(i) + " '" + v.name + "'", &k));
    if (i > 0 && k != slices)
      throw py::value_error("input " + std::to_string(i) + " '" + v.name + "' holds " +
                            std::to_string(k) + " batch slices but input 0 holds " +
                            std::to_string(slices));
    slices = k;
  }
  return RunLocked(arrays, slices, threads, dequantize);
}

py::object PyModel::RunLocked(const std::vector<py::array>& arrays, size_t slices, size_t threads,
                              bool dequantize) {
  std::vector<py::array> outs;
  for (const TensorView& v : outputs_) {
    std::vector<int64_t> shape = ViewShape(v);
    if (shape.empty() && slices > 1) shape = {1};
    if (slices > 1) shape[0] *= static_cast<int64_t>(slices);
    if (v.dtype == DType::kInt8 && !dequantize)
      outs.push_back(py::array_t<int8_t>(shape));
    else
      outs.push_back(py::array_t<float>(shape));
  }
  // Raw pointers taken with the GIL held; the loop below touches no Python object.
  std::vector<const void*> in_data;
  std::vector<bool> in_int8;
  for (const py::array& a : arrays) {
    in_data.push_back(a.data());
    in_int8.push_back(a.dtype().kind() == 'i');
  }
  std::vector<void*> out_data;
  std::vector<bool> out_int8;
  for (py::array& a : outs) {
    out_data.push_back(a.mutable_data());
    out_int8.push_back(a.dtype().kind() == 'i');
  }
  Status st = Status::kOk;
  const char* call = "";
  {
    py::gil_scoped_release release;  // the mutex is taken without the GIL: no lock-order cycle
    std::lock_guard<std::mutex> lock(mutex_);
    if (threads != threads_ || interpreter_ == nullptr) Open(threads);
    Interpreter& interp = *interpreter_;
    for (size_t s = 0; s < slices && st == Status::kOk; ++s) {
      call = "SetInput";
      for (size_t i = 0; i < in_data.size() && st == Status::kOk; ++i) {
        const size_t elems = inputs_[i].elems;
        if (in_int8[i])
          st = interp.SetInputS8(i, static_cast<const int8_t*>(in_data[i]) + s * elems, elems);
        else if (inputs_[i].dtype == DType::kInt8)
          st = interp.QuantizeInput(i, static_cast<const float*>(in_data[i]) + s * elems, elems);
        else
          st = interp.SetInput(i, static_cast<const float*>(in_data[i]) + s * elems, elems);
      }
      if (st != Status::kOk) break;
      call = "Invoke";
      st = interp.Invoke();
      call = "DequantizeOutput";
      for (size_t o = 0; o < out_data.size() && st == Status::kOk; ++o) {
        const size_t elems = outputs_[o].elems;
        if (out_int8[o])
          std::memcpy(static_cast<int8_t*>(out_data[o]) + s * elems, interp.output(o).data_s8,
                      elems);
        else
          st = interp.DequantizeOutput(o, static_cast<float*>(out_data[o]) + s * elems, elems);
      }
    }
  }
  if (st != Status::kOk) throw EdgefoldError(Describe(call, st));
  if (outs.size() == 1) return outs[0];
  py::tuple result(outs.size());
  for (size_t o = 0; o < outs.size(); ++o) result[o] = outs[o];
  return result;
}

py::bytes PyModel::Bytes() const {
  return py::bytes(reinterpret_cast<const char*>(bytes_->data.get()), bytes_->bytes);
}

uint64_t PyModel::planned_arena_bytes() const {
  return fb::GetModel(bytes_->data.get())->arena_bytes();
}

uint64_t PyModel::weights_bytes() const {
  const auto* weights = fb::GetModel(bytes_->data.get())->weights();
  return weights ? weights->size() : 0;
}

bool PyModel::trainable() const { return fb::GetModel(bytes_->data.get())->training() != nullptr; }

std::string PyModel::kernel_isa() const { return kernel_isa_; }

py::tuple TensorInfo(const TensorView& v) {
  py::list shape;
  for (int d = 0; d < v.rank; ++d) shape.append(v.shape[d]);
  return py::make_tuple(v.name, py::tuple(shape), DTypeName(v.dtype), v.scale, v.zero_point);
}

py::list PyModel::Inputs() const {
  py::list l;
  for (const TensorView& v : inputs_) l.append(TensorInfo(v));
  return l;
}

py::list PyModel::Outputs() const {
  py::list l;
  for (const TensorView& v : outputs_) l.append(TensorInfo(v));
  return l;
}

py::list PyModel::Ops() const {
  py::list l;
  for (const auto& [name, type] : ops_) l.append(py::make_tuple(name, type));
  return l;
}

}  // namespace edgefold::python
