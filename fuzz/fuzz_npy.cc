// libFuzzer target: arbitrary bytes as a .npy file. ParseNpy must return true with a
// consistent array, or false with a message — never crash or allocate without bound.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  edgefold::tools::NpyArray array;
  std::string error;
  if (edgefold::tools::ParseNpy(data, size, "fuzz.npy", &array, &error)) {
    const size_t elems = array.elems();
    size_t held = array.f32.size();
    if (array.dtype == edgefold::tools::NpyDType::kInt64) held = array.i64.size();
    if (array.dtype == edgefold::tools::NpyDType::kInt8) held = array.s8.size();
    if (elems != held) std::abort();  // shape and data must agree
  } else if (error.empty()) {
    std::abort();  // every rejection explains itself
  }
  return 0;
}
