#include "py_arrays.h"

namespace edgefold::python {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::vector<int64_t> ViewShape(const TensorView& view) {
  return std::vector<int64_t>(view.shape, view.shape + view.rank);
}

py::array ToNumpy(py::handle obj) {
  if (py::isinstance<py::array>(obj)) return py::reinterpret_borrow<py::array>(obj);
  if (py::hasattr(obj, "detach") && py::hasattr(obj, "numpy"))  // a torch.Tensor
    return obj.attr("detach")().attr("cpu")().attr("numpy")();
  return py::module_::import("numpy").attr("asarray")(obj);
}

namespace {

std::vector<int64_t> ArrayShape(const py::array& a) {
  return std::vector<int64_t>(a.shape(), a.shape() + a.ndim());
}

std::string DTypeText(const py::array& a) { return py::str(a.dtype()).cast<std::string>(); }

// k when `got` is `want` with its leading dim multiplied by k ≥ 1; 0 when it is not.
size_t SlicesOf(const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
  if (got == want) return 1;
  if (got.size() != want.size() || want.empty() || want[0] <= 0 || got[0] <= 0) return 0;
  for (size_t d = 1; d < want.size(); ++d)
    if (got[d] != want[d]) return 0;
  return got[0] % want[0] == 0 ? static_cast<size_t>(got[0] / want[0]) : 0;
}

}  // namespace

py::array CheckedInput(py::handle obj, const TensorView& view, const std::string& what,
                       size_t* slices) {
  py::array a = ToNumpy(obj);
  const bool int8_input = view.dtype == DType::kInt8;
  const char kind = a.dtype().kind();
  const std::string expected =
      std::string(int8_input ? "int8 (or float32, quantized)" : "float32") + " " +
      ShapeText(ViewShape(view));
  const bool int8_data = kind == 'i' && a.itemsize() == 1;
  if (kind != 'f' && !(int8_input && int8_data))
    throw py::value_error(what + ": expected " + expected + ", got a " + DTypeText(a) +
                          " array of shape " + ShapeText(ArrayShape(a)));
  *slices = SlicesOf(ArrayShape(a), ViewShape(view));
  if (*slices == 0)
    throw py::value_error(what + ": expected shape " + ShapeText(ViewShape(view)) +
                          " (or a multiple of its leading dim) " +
                          (int8_input ? "int8" : "float32") + ", got shape " +
                          ShapeText(ArrayShape(a)));
  if (int8_data) return py::array_t<int8_t, py::array::c_style | py::array::forcecast>::ensure(a);
  return py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
}

FloatArrayC FloatArray(py::handle obj, const std::string& what) {
  py::array a = ToNumpy(obj);
  if (a.dtype().kind() != 'f')
    throw py::value_error(what + ": expected a float32 array, got " + DTypeText(a));
  return py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
}

}  // namespace edgefold::python
