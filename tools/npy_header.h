// Parser for the Python-literal dictionary inside a .npy header, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// Bounds-checked: works on a std::string, never reads past its end, rejects anything
// but the three known keys, each exactly once.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::tools {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// On failure `error` names the field that is wrong (without the file name).
bool ParseNpyHeaderDict(const std::string& text, int max_rank, NpyHeader* out, std::string* error);

}  // namespace edgefold::tools
