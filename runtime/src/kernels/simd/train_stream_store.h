// Non-temporal ("streaming") stores for outputs too large to stay in cache: they skip the
// read-for-ownership of the destination line (a plain store to an uncached line first reads
// it from DRAM) and do not evict the working set. x86 only (movntps); other archs, and
// addresses not aligned to the register, store normally.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/simd/simd_common.h"
#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace edgefold::kernels::EDGEFOLD_ARCH_NS {

// An output tensor of at least this many bytes is streamed: beyond a core's share of the
// last-level cache it is evicted to DRAM before anyone reads it again anyway.
constexpr size_t kStreamMinBytes = size_t{16} << 20;

template <class Arch>
constexpr bool kHasStreamStore =
#if defined(__SSE2__)
    std::is_base_of<xsimd::avx512f, Arch>::value || std::is_base_of<xsimd::avx, Arch>::value ||
    std::is_base_of<xsimd::sse2, Arch>::value;
#else
    false;
#endif

// Stores v at p: streamed when `stream` and p is register-aligned, else a plain store.
template <class Arch>
inline void StoreMaybeStream(FBatch<Arch> v, float* p, bool stream) {
#if defined(__SSE2__)  // the intrinsics exist only on x86 targets
  constexpr size_t kBytes = FBatch<Arch>::size * sizeof(float);
  if constexpr (kHasStreamStore<Arch>) {
    if (stream && reinterpret_cast<uintptr_t>(p) % kBytes == 0) {
      if constexpr (std::is_base_of<xsimd::avx512f, Arch>::value)
        _mm512_stream_ps(p, v);
      else if constexpr (std::is_base_of<xsimd::avx, Arch>::value)
        _mm256_stream_ps(p, v);
      else
        _mm_stream_ps(p, v);
      return;
    }
  }
#endif
  v.store_unaligned(p);
}

// Elements to write in scalar before p + i is register-aligned (0 when not streaming).
template <class Arch>
inline size_t StreamPeel(const float* p, size_t n, bool stream) {
  constexpr size_t kBytes = FBatch<Arch>::size * sizeof(float);
  if (!kHasStreamStore<Arch> || !stream) return 0;
  const size_t mis = reinterpret_cast<uintptr_t>(p) % kBytes;
  const size_t peel = mis == 0 || mis % sizeof(float) != 0 ? 0 : (kBytes - mis) / sizeof(float);
  return peel < n ? peel : n;
}

// Orders the streamed stores before anything the caller writes or signals next.
template <class Arch>
inline void StreamFence(bool stream) {
#if defined(__SSE2__)
  if constexpr (kHasStreamStore<Arch>) {
    if (stream) _mm_sfence();
  }
#else
  (void)stream;
#endif
}

}  // namespace edgefold::kernels::EDGEFOLD_ARCH_NS
