// How the binding reports failures to Python: ef.Error (the compiler's or runtime's message)
// for what edgefold refuses, ValueError for arguments that do not fit the model.
#pragma once
#include <stdexcept>
#include <string>

namespace edgefold::python {

// Translated to edgefold.Error (module.cc registers it).
struct EdgefoldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace edgefold::python
