// Three facts about this machine's cores that a static split of an op over threads depends on:
//  1. each CPU's own speed: a pinned loop of independent fused multiply-adds per CPU (on a
//     shared host two vCPUs can run at different speeds, and a split in halves ends at the
//     slower one's pace);
//  2. what reading data another core wrote costs: a buffer written by a thread pinned to CPU w,
//     then read (one float per 64-byte line) by a thread pinned to CPU r, against w == r;
//  3. what writing data again costs once another core has read it: the writer's lines are then
//     shared, and each store first takes its line back (against w == r: nothing shared).
//   g++ -O2 -std=c++17 -march=native -ffp-contract=fast bench/threads/core_bench.cc -lpthread -o core_bench
//   ./core_bench 262144 786432          (buffer bytes for parts 2 and 3; default 262144)
// Prints the best of several rounds (a shared host's slow spells fall on the others).
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

void PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// Runs f on a new thread pinned to cpu and waits for it.
template <class F>
void OnCpu(int cpu, F&& f) {
  std::thread t([&] {
    PinTo(cpu);
    f();
  });
  t.join();
}

// 16 independent chains of 16-float vectors (GCC vector extension: the widest registers
// -march=native has), 2 flops per lane per step; -ffp-contract=fast makes each step one fused
// multiply-add (ISO C++ mode leaves a·b + c unfused).
using V = float __attribute__((vector_size(64)));

double FmaMillis(long steps) {
  V acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = V{} + 1.0f + static_cast<float>(i) * 1e-3f;
  const V a = V{} + 0.999999f, b = V{} + 1e-7f;
  const auto start = Clock::now();
  for (long s = 0; s < steps; ++s) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = acc[i] * a + b;  // all 16 chains in registers
  }
  const auto end = Clock::now();
  float sink = 0;
  for (int i = 0; i < 16; ++i) sink += acc[i][0];
  if (sink == 42.0f) std::printf(" ");  // keeps the loop
  return Micros(start, end) / 1000.0;
}

// Best-of-rounds µs to read `bytes` (one float per line) after a thread on `writer` wrote them.
double ReadMicros(int writer, int reader, std::vector<float>& buf, int rounds) {
  double best = 1e30;
  volatile float sink = 0;
  for (int r = 0; r < rounds; ++r) {
    OnCpu(writer, [&] {
      for (size_t i = 0; i < buf.size(); i += 16) buf[i] = static_cast<float>(r + i);
    });
    OnCpu(reader, [&] {
      const auto start = Clock::now();
      float sum = 0;
      for (size_t i = 0; i < buf.size(); i += 16) sum += buf[i];
      best = std::min(best, Micros(start, Clock::now()));
      sink = sink + sum;
    });
  }
  return best;
}

// Best-of-rounds µs for the thread on `writer` to write `bytes` again (whole 64-byte lines, as
// a kernel's output stores do) after it wrote them and a thread on `reader` read them. That is
// what an op pays for an arena region the other thread read in an earlier op (a GEMM split by
// rows reads all of B); reader == writer is the cost with nothing shared.
double RewriteMicros(int writer, int reader, std::vector<float>& buf, int rounds) {
  // The vector holds one spare line, so the lines start at its first 64-byte boundary.
  const auto first = (reinterpret_cast<std::uintptr_t>(buf.data()) + 63) & ~std::uintptr_t{63};
  V* lines = reinterpret_cast<V*>(first);
  const size_t count = buf.size() / 16 - 1;
  double best = 1e30;
  volatile float sink = 0;
  for (int r = 0; r < rounds; ++r) {
    OnCpu(writer, [&] {
      for (size_t i = 0; i < count; ++i) lines[i] = V{} + static_cast<float>(r);
    });
    OnCpu(reader, [&] {
      V sum = V{};
      for (size_t i = 0; i < count; ++i) sum += lines[i];
      sink = sink + sum[0];
    });
    OnCpu(writer, [&] {
      const auto start = Clock::now();
      const V value = V{} + static_cast<float>(r + 1);
      for (size_t i = 0; i < count; ++i) lines[i] = value;
      best = std::min(best, Micros(start, Clock::now()));
    });
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof(allowed), &allowed);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);

  const long steps = 20'000'000;
  std::printf("fused multiply-add loop (16 chains x 16 floats, %ld steps), best of 5:\n", steps);
  for (int cpu : cpus) {
    double best = 1e30;
    for (int r = 0; r < 5; ++r) OnCpu(cpu, [&] { best = std::min(best, FmaMillis(steps)); });
    std::printf("  cpu %d: %.1f ms  (%.1f GFLOP/s)\n", cpu, best,
                2.0 * 16 * 16 * steps / (best * 1e6));
  }

  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  if (sizes.empty()) sizes.push_back(262144);
  std::printf("reading a buffer another thread wrote (one float per line), best of 200:\n");
  for (size_t bytes : sizes) {
    std::vector<float> buf(bytes / sizeof(float));
    for (int w : cpus)
      for (int r : cpus) {
        const double us = ReadMicros(w, r, buf, 200);
        std::printf("  %zu B written on cpu %d, read on cpu %d: %.2f us (%.1f GB/s)\n", bytes, w, r,
                    us, bytes / (us * 1e3));
      }
  }
  std::printf("writing a buffer again after a thread read it (whole lines), best of 200:\n");
  for (size_t bytes : sizes) {
    std::vector<float> buf(bytes / sizeof(float) + 16);
    for (int w : cpus)
      for (int r : cpus) {
        const double us = RewriteMicros(w, r, buf, 200);
        std::printf(
            "  %zu B written on cpu %d, read on cpu %d, written again on cpu %d: %.2f us (%.1f "
            "GB/s)\n",
            bytes, w, r, w, us, bytes / (us * 1e3));
      }
  }
  return 0;
}
