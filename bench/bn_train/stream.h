// A STREAM-like measurement of this machine's single-thread memory bandwidth: copy
// (a[i] = b[i], 8 bytes/element) and triad (a[i] = b[i] + s·c[i], 12 bytes/element) over
// arrays far larger than the last-level cache. Bytes count reads + writes as STREAM does
// (write-allocate traffic not counted). Best of `reps` runs. copy_nt is the same copy with
// streaming stores (x86), i.e. without the write-allocate read: the ceiling for kernels that
// stream their outputs as the BN kernels do for large tensors.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace edgefold::bench {

struct StreamResult {
  double copy_gbps = 0.0, triad_gbps = 0.0, copy_nt_gbps = 0.0;
};

inline double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline StreamResult MeasureStream(size_t elems = size_t{32} << 20, int reps = 8) {
  float* a = static_cast<float*>(std::aligned_alloc(64, elems * sizeof(float)));
  float* b = static_cast<float*>(std::aligned_alloc(64, elems * sizeof(float)));
  float* c = static_cast<float*>(std::aligned_alloc(64, elems * sizeof(float)));
  for (size_t i = 0; i < elems; ++i) a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f;
  double best_copy = 1e30, best_triad = 1e30, best_nt = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < elems; ++i) a[i] = b[i];
    best_copy = std::min(best_copy, SecondsSince(t0));
    t0 = std::chrono::steady_clock::now();
    const float s = 3.0f + static_cast<float>(r);
    for (size_t i = 0; i < elems; ++i) a[i] = b[i] + s * c[i];
    best_triad = std::min(best_triad, SecondsSince(t0));
#if defined(__SSE2__)
    t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < elems; i += 4) _mm_stream_ps(a + i, _mm_load_ps(b + i));
    _mm_sfence();
    best_nt = std::min(best_nt, SecondsSince(t0));
#endif
  }
  volatile float sink = a[elems / 2];
  (void)sink;
  std::free(a), std::free(b), std::free(c);
  return {8.0 * elems / best_copy / 1e9, 12.0 * elems / best_triad / 1e9,
          8.0 * elems / best_nt / 1e9};
}

}  // namespace edgefold::bench
