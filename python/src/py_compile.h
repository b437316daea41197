// edgefold.compile's native half: ONNX bytes and options (already checked and normalized by
// edgefold/_options.py) through the compiler library, the way `edgefold compile` does.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

namespace edgefold::python {

namespace py = pybind11;

// Returns (model: _Model, report: dict). `example_shapes` (a list of shapes, one per graph
// input, or empty) fixes dynamic input dims that `options["input_shapes"]` leaves open.
// Throws EdgefoldError with the compiler's message. Releases the GIL while compiling.
py::tuple CompileOnnx(const py::bytes& onnx, const std::string& model_name, const py::dict& options,
                      const py::list& example_shapes);

}  // namespace edgefold::python
