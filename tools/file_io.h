// Whole-file reads into 64-byte aligned memory: the runtime reads weights in place, so
// model bytes must start at a 64-byte boundary, and arenas must be 64-byte aligned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace edgefold::tools {

constexpr size_t kBufferAlignment = 64;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Owns `bytes` usable bytes at a 64-byte aligned address (capacity rounded up to 64).
struct AlignedBuffer {
  std::unique_ptr<uint8_t, FreeDeleter> data;
  size_t bytes = 0;
};

// Zero-filled aligned buffer; data is null only if the allocation failed.
AlignedBuffer AllocateAligned(size_t bytes);

// Reads the whole file at `path`. On failure `error` names the file and the reason.
bool ReadFileAligned(const std::string& path, AlignedBuffer* out, std::string* error);

}  // namespace edgefold::tools
