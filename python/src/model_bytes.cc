#include "model_bytes.h"

#include <cstring>

#include "py_errors.h"

namespace edgefold::python {

ModelBytes CopyToAligned(const uint8_t* bytes, size_t size) {
  auto buffer = std::make_shared<tools::AlignedBuffer>(tools::AllocateAligned(size));
  if (!buffer->data) throw std::bad_alloc();
  if (size > 0) std::memcpy(buffer->data.get(), bytes, size);
  return buffer;
}

ModelBytes ReadModelFile(const std::string& path) {
  auto buffer = std::make_shared<tools::AlignedBuffer>();
  std::string error;
  if (!tools::ReadFileAligned(path, buffer.get(), &error)) throw EdgefoldError(error);
  return buffer;
}

}  // namespace edgefold::python
