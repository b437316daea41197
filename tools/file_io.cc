#include "file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace edgefold::tools {

AlignedBuffer AllocateAligned(size_t bytes) {
  AlignedBuffer buf;
  // aligned_alloc wants a size that is a multiple of the alignment (and non-zero).
  const size_t capacity = (bytes / kBufferAlignment + 1) * kBufferAlignment;
  void* p = std::aligned_alloc(kBufferAlignment, capacity);
  if (p == nullptr) return buf;
  std::memset(p, 0, capacity);
  buf.data.reset(static_cast<uint8_t*>(p));
  buf.bytes = bytes;
  return buf;
}

bool ReadFileAligned(const std::string& path, AlignedBuffer* out, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = path + ": cannot open (" + std::strerror(errno) + ")";
    return false;
  }
  long size = -1;
  if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
  if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) {
    std::fclose(f);
    *error = path + ": cannot determine the file size";
    return false;
  }
  AlignedBuffer buf = AllocateAligned(static_cast<size_t>(size));
  if (!buf.data) {
    std::fclose(f);
    *error = path + ": out of memory reading " + std::to_string(size) + " bytes";
    return false;
  }
  const size_t got = size ? std::fread(buf.data.get(), 1, buf.bytes, f) : 0;
  std::fclose(f);
  if (got != buf.bytes) {
    *error = path + ": short read (" + std::to_string(got) + " of " + std::to_string(size) +
             " bytes)";
    return false;
  }
  *out = std::move(buf);
  return true;
}

}  // namespace edgefold::tools
