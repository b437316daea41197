#include "edgefold/types.h"

namespace edgefold {

const char* DTypeName(DType d) {
  switch (d) {
    case DType::kFloat32:
      return "float32";
    case DType::kInt32:
      return "int32";
    case DType::kInt8:
      return "int8";
  }
  return "?";
}

}  // namespace edgefold
