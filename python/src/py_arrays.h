// numpy (or torch) arrays in, checked against a model tensor: at most one conversion, and a
// ValueError naming the input and the expected shape and dtype when nothing fits.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "edgefold/interpreter.h"

namespace edgefold::python {

namespace py = pybind11;

using FloatArrayC = py::array_t<float, py::array::c_style | py::array::forcecast>;

// "[1, 1, 8, 8]"
std::string ShapeText(const std::vector<int64_t>& shape);
std::vector<int64_t> ViewShape(const TensorView& view);

// A numpy array for `obj`: numpy arrays as they are, torch tensors through .numpy() (detached,
// on the CPU), anything else through numpy.asarray.
py::array ToNumpy(py::handle obj);

// `obj` as a C-contiguous array the input `view` can take: float32 for a float input (other
// float dtypes converted; integer and other dtypes refused), int8 or float32 for an int8 input
// (float32 is quantized by the caller). `what` names the input in messages ("input 0 'x'").
// The shape must equal the input's, or be k times its leading dim with the rest equal; `slices`
// receives k. Throws py::value_error otherwise.
py::array CheckedInput(py::handle obj, const TensorView& view, const std::string& what,
                       size_t* slices);

// A float32 C-contiguous array of exactly `elems` values (any shape), converted from any
// float dtype; `what` names the argument in the ValueError.
FloatArrayC FloatArray(py::handle obj, const std::string& what);

}  // namespace edgefold::python
