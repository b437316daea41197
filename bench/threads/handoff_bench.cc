// What one parallel step costs on this machine: edgefold::ThreadPool::ParallelFor with two
// tasks that, like two halves of an op, each read a whole buffer and write their half of it
// (the next step then reads what the other core wrote), against one thread running both tasks.
// The difference is the hand-off plus moving the written lines between the cores' caches.
//   g++ -O2 -std=c++17 -Iruntime/include bench/threads/handoff_bench.cc \
//     build-bench/runtime/libedgefold_thread_pool.a -lpthread -o handoff_bench
//   ./handoff_bench 0 16384 65536 262144     (buffer bytes per step)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "edgefold/thread_pool.h"

namespace {

struct Step {
  float* data;
  size_t floats;
  float sums[2];
};

// Task t of 2: reads every line of the buffer, writes one float per line of its half.
void RunHalf(void* ctx, size_t t) {
  Step& s = *static_cast<Step*>(ctx);
  const size_t half = s.floats / 2;
  float sum = 0;
  for (size_t i = 0; i < s.floats; i += 16) sum += s.data[i];
  for (size_t i = t * half; i < (t + 1) * half; i += 16) s.data[i] = sum * 1e-9f + 1.0f;
  s.sums[t] += sum;
}

double MicrosPerStep(edgefold::ThreadPool* pool, Step* step, int steps) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    if (pool != nullptr) {
      edgefold::ThreadPool::ParallelFor(pool, 2, &RunHalf, step);
    } else {
      RunHalf(step, 0);
      RunHalf(step, 1);
    }
  }
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
             .count() /
         steps;
}

}  // namespace

int main(int argc, char** argv) {
  edgefold::ThreadPool pool(2);
  for (int a = 1; a < argc; ++a) {
    const size_t bytes = std::strtoul(argv[a], nullptr, 10);
    std::vector<float> buffer(bytes / sizeof(float) + 32, 1.0f);
    Step step{buffer.data(), buffer.size(), {0, 0}};
    MicrosPerStep(&pool, &step, 1000);  // warm-up: workers spinning, buffer touched
    double two = 1e30, one = 1e30;      // best of five rounds of each, alternating
    for (int round = 0; round < 5; ++round) {
      two = std::min(two, MicrosPerStep(&pool, &step, 4000));
      one = std::min(one, MicrosPerStep(nullptr, &step, 4000));
    }
    std::printf("bytes=%zu two_threads_us=%.2f one_thread_us=%.2f\n", bytes, two, one);
  }
  return 0;
}
