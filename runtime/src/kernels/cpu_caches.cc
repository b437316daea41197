#include "kernels/cpu_caches.h"

#include <algorithm>

#if defined(EDGEFOLD_HOSTED)
#include <cstdlib>
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <unistd.h>
#endif
#endif

namespace edgefold::kernels {
namespace {

#if defined(EDGEFOLD_HOSTED) && (defined(__unix__) || defined(__APPLE__))
// The first line of a small text file, NUL-terminated; false if it cannot be read.
bool ReadLine(const char* path, char* buf, size_t buf_bytes) {
  const int fd = ::open(path, O_RDONLY);
  if (fd < 0) return false;
  const ssize_t got = ::read(fd, buf, buf_bytes - 1);
  ::close(fd);
  if (got <= 0) return false;
  buf[got] = '\0';
  for (ssize_t i = 0; i < got; ++i)
    if (buf[i] == '\n') buf[i] = '\0';
  return true;
}

// "48K", "2048K", "1M" (the /sys format) → bytes; 0 if it is none of these.
size_t ParseSize(const char* s) {
  size_t v = 0;
  bool digits = false;
  for (; *s >= '0' && *s <= '9'; ++s, digits = true) v = v * 10 + static_cast<size_t>(*s - '0');
  if (!digits) return 0;
  if (*s == 'K') return v * 1024;
  if (*s == 'M') return v * 1024 * 1024;
  return *s == '\0' ? v : 0;
}

// Linux: cpu0's cache/indexN/{level,type,size}; a level's data or unified cache.
size_t SysfsCacheBytes(int level) {
  char path[96], buf[32];
  for (int index = 0; index < 8; ++index) {
    const char* base = "/sys/devices/system/cpu/cpu0/cache/index";
    const auto at = [&](const char* leaf) {
      size_t n = 0;
      for (const char* c = base; *c != '\0'; ++c) path[n++] = *c;
      path[n++] = static_cast<char>('0' + index);
      path[n++] = '/';
      for (const char* c = leaf; *c != '\0'; ++c) path[n++] = *c;
      path[n] = '\0';
      return path;
    };
    if (!ReadLine(at("level"), buf, sizeof buf)) return 0;  // no more indexes
    if (buf[0] != static_cast<char>('0' + level) || buf[1] != '\0') continue;
    if (!ReadLine(at("type"), buf, sizeof buf)) continue;
    if (buf[0] == 'I') continue;  // Instruction
    if (ReadLine(at("size"), buf, sizeof buf)) return ParseSize(buf);
  }
  return 0;
}

size_t SysconfBytes([[maybe_unused]] int name) {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  const long v = ::sysconf(name);
  return v > 0 ? static_cast<size_t>(v) : 0;
#else
  return 0;
#endif
}

size_t EnvKiB(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? ParseSize(v) * 1024 : 0;
}

CacheSizes Detect() {
  CacheSizes c;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  size_t l1 = SysconfBytes(_SC_LEVEL1_DCACHE_SIZE), l2 = SysconfBytes(_SC_LEVEL2_CACHE_SIZE);
#else
  size_t l1 = 0, l2 = 0;
#endif
  if (l1 == 0) l1 = SysfsCacheBytes(1);
  if (l2 == 0) l2 = SysfsCacheBytes(2);
  if (const size_t v = EnvKiB("EDGEFOLD_L1D_KB")) l1 = v;
  if (const size_t v = EnvKiB("EDGEFOLD_L2_KB")) l2 = v;
  // Guard nonsense (a VM reporting 0 or a whole L3): keep within what a core has.
  if (l1 >= 8 * 1024 && l1 <= 1024 * 1024) c.l1d_bytes = l1;
  if (l2 >= 64 * 1024 && l2 <= 64 * 1024 * 1024) c.l2_bytes = l2;
  return c;
}
#endif

}  // namespace

#if defined(EDGEFOLD_HOSTED) && (defined(__unix__) || defined(__APPLE__))
const CacheSizes& HostCaches() {
  static const CacheSizes caches = Detect();
  return caches;
}
#else
// Bare metal: the defaults, a constant (no guarded static: no guard code in the firmware).
const CacheSizes& HostCaches() {
  static constexpr CacheSizes kDefaults{};
  return kDefaults;
}
#endif

GemmBlocking GemmBlockingFor(const CacheSizes& caches, size_t mr, size_t panel_floats) {
  GemmBlocking b;
  const size_t panel_row_bytes = std::max<size_t>(panel_floats, 1) * sizeof(float);
  size_t kc = caches.l1d_bytes / panel_row_bytes;
  kc = std::min(std::max<size_t>(kc, 64), kGemmMaxKc) / 8 * 8;
  size_t mc = caches.l2_bytes / 2 / (kc * sizeof(float));
  const size_t row_tile = std::max<size_t>(mr, 1);
  mc = std::max(mc / row_tile, size_t{1}) * row_tile;
  b.kc = kc;
  b.mc = mc;
  return b;
}

}  // namespace edgefold::kernels
