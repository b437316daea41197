// The compiler's reports as Python dicts (edgefold/_report.py formats them as text, with the
// lines `edgefold compile` prints).
#pragma once
#include <pybind11/pybind11.h>

#include "edgefold_compiler/compiler.h"
#include "edgefold_compiler/training.h"

namespace edgefold::python {

namespace py = pybind11;

void CompileReportInto(const compiler::CompileReport& r, size_t efb_bytes, py::dict* out);
py::dict TrainingDict(const compiler::TrainingReport& t, const compiler::TrainingOptions& options);
py::dict CalibrationDict(const compiler::CalibrationReport& c, float momentum);

}  // namespace edgefold::python
