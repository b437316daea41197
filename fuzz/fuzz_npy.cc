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
    const size_t held = array.dtype == edgefold::tools::NpyDType::kFloat32 ? array.f32.size()
                                                                          : array.i64.size();
    if (elems != held) std::abort();   // shape and data must agree
  } else if (error.empty()) {
    std::abort();                      // every rejection explains itself
  }
  return 0;
}
