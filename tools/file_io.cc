#include "file_io.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace edgefold::tools {

AlignedBuffer AllocateAligned(size_t bytes) {
  AlignedBuffer buf;
  // Buffers of 2 MiB and more (arenas, weights) are 2 MiB aligned and asked to be backed by
  // transparent huge pages (Debian's THP mode is "madvise"): fewer TLB misses over weights and
  // activations of tens of MB, and steadier latency between processes (bench/README.md, Round 3).
  // The runtime itself never allocates; this is the CLI's caller-side choice.
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t align = bytes >= kHugePage ? kHugePage : kBufferAlignment;
  // aligned_alloc wants a size that is a multiple of the alignment (and non-zero).
  const size_t capacity = (bytes / align + 1) * align;
  void* p = std::aligned_alloc(align, capacity);
  if (p == nullptr) return buf;
#if defined(MADV_HUGEPAGE)
  if (align == kHugePage) madvise(p, capacity, MADV_HUGEPAGE);  // advice only: errors ignored
#endif
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
    *error =
        path + ": short read (" + std::to_string(got) + " of " + std::to_string(size) + " bytes)";
    return false;
  }
  *out = std::move(buf);
  return true;
}

}  // namespace edgefold::tools
