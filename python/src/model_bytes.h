// The .efb bytes a Model and its Trainers share: 64-byte aligned (the runtime reads weights
// in place), never written after construction, freed when the last owner goes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "file_io.h"

namespace edgefold::python {

using ModelBytes = std::shared_ptr<const tools::AlignedBuffer>;

// One copy of `bytes` into aligned memory (compiler output is a std::vector, not aligned).
ModelBytes CopyToAligned(const uint8_t* bytes, size_t size);
// Reads `path` straight into aligned memory; throws EdgefoldError naming the file.
ModelBytes ReadModelFile(const std::string& path);

}  // namespace edgefold::python
