// What the compiler needs to call the runtime: 64-byte aligned, zero-padded copies of model
// bytes (or an empty arena), and Options whose log collects the runtime's messages.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"

namespace edgefold::compiler {

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<uint8_t, AlignedFree>;

inline AlignedBuffer AlignedCopy(const std::vector<uint8_t>& bytes, size_t size) {
  const size_t rounded =
      (std::max<size_t>(size, 1) + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  AlignedBuffer buf(static_cast<uint8_t*>(std::aligned_alloc(kArenaAlignment, rounded)));
  if (buf == nullptr) return buf;
  std::memset(buf.get(), 0, rounded);
  if (!bytes.empty()) std::memcpy(buf.get(), bytes.data(), std::min(bytes.size(), size));
  return buf;
}

// Options whose log appends each runtime message to *log (on its own indented line).
inline Options CollectingOptions(std::string* log) {
  Options o;
  o.log = [](void* user, const char* message) {
    *static_cast<std::string*>(user) += std::string("\n  ") + message;
  };
  o.log_user = log;
  return o;
}

}  // namespace edgefold::compiler
