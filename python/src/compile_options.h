// The normalized option dict edgefold/_options.py builds, read into the compiler's structs.
// Keys and meanings mirror `edgefold compile`'s flags (tools/cmd_compile.cc); absent keys keep
// the compiler's defaults.
#pragma once
#include <pybind11/pybind11.h>

#include <vector>

#include "edgefold_compiler/compiler.h"
#include "edgefold_compiler/training.h"

namespace edgefold::python {

namespace py = pybind11;

struct CompileRequest {
  compiler::CompileOptions options;
  bool train = false;
  compiler::TrainingOptions training;
  std::vector<float> bn_calibration;  // calibrate= without quantize: BN statistics from data
  int calibrate_batch = 32;
  float calibrate_momentum = -1;  // < 0: Algorithm 2's cumulative average
};

// Throws py::value_error naming the option when a value does not convert.
CompileRequest ReadCompileRequest(const py::dict& options);

}  // namespace edgefold::python
