// int8 graph inputs and outputs (a model compiled with --io int8) for the validation program:
// their conversion uses the int8 kernel family, so it lives in an object of its own that a
// trimmed firmware links only for a model with int8 I/O (validate_main.cc refers to it weakly).
#include "edgefold/interpreter.h"

edgefold::Status EdgefoldValidateQuantizeInput(edgefold::Interpreter& interp, size_t i,
                                               const float* data, size_t elems) {
  return interp.QuantizeInput(i, data, elems);
}

edgefold::Status EdgefoldValidateDequantizeOutput(const edgefold::Interpreter& interp, size_t i,
                                                  float* out, size_t elems) {
  return interp.DequantizeOutput(i, out, elems);
}
