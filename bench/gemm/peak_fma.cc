// Peak FMA throughput of one core (best of many short trials, so other processes on a busy
// machine do not hide it): 24 independent accumulator chains (more than
// latency × pipes on any current core), registers only, on xsimd's best arch for the flags
// this file is compiled with (run.sh builds it with -march=native).
#include <xsimd/xsimd.hpp>

#include <chrono>
#include <cstddef>

double PeakFmaGflops(size_t* lanes) {
  using B = xsimd::batch<float>;
  constexpr int kChains = 24;
  constexpr long kIters = 200'000;  // ~0.1 ms a trial: short enough to run between preemptions
  double best = 0.0;
  for (int trial = 0; trial < 2000; ++trial) {  // the best trial is the unloaded core
    B acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = B(static_cast<float>(c) * 1e-3f);
    const B x(0.999999f), y(1e-7f);
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < kIters; ++i) {
#pragma GCC unroll 32
      for (int c = 0; c < kChains; ++c) acc[c] = xsimd::fma(acc[c], x, y);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    float sink = 0.0f;
    for (int c = 0; c < kChains; ++c) sink += xsimd::hadd(acc[c]);
    if (sink == 12345.0f) return 0.0;
    const double gflops = 2.0 * B::size * kChains * static_cast<double>(kIters) / s / 1e9;
    if (gflops > best) best = gflops;
  }
  *lanes = B::size;
  return best;
}
