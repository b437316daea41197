// What a split run costs right after runs on one thread (the pool's workers asleep: they sleep
// once they have spun ~200 µs without a job) against right after another split run, and a run
// alone, on one compiled model: the reason Options::adapt_splits times a run only when the run
// before went the same way (runtime/src/interpreter/split_timing.h).
//   cmake --build build --target edgefold_runtime edgefold_thread_pool edgefold_kernels
//   g++ -O2 -std=c++17 -Iruntime/include bench/threads/cold_split_bench.cc
//     build/runtime/libedgefold_runtime.a build/runtime/libedgefold_thread_pool.a
//     build/runtime/src/kernels/libedgefold_kernels.a -lpthread -o cold_split_bench   (one line)
//   ./cold_split_bench M.efb [threads] [rounds]        (default 2 threads, 300 rounds)
// Each round: 31 runs alone, then three split runs (the first timed as "after alone", the other
// two as "after split"). Prints the median and minimum of each, in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "edgefold/interpreter.h"
#include "edgefold/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

edgefold::Interpreter* Open(const uint8_t* model, size_t bytes, const edgefold::Options& o) {
  size_t arena_bytes = 0;
  if (edgefold::RequiredArenaBytes(model, bytes, &arena_bytes, o) != edgefold::Status::kOk)
    return nullptr;
  void* arena = std::aligned_alloc(64, (arena_bytes + 63) / 64 * 64);
  edgefold::Interpreter* interp = nullptr;
  if (edgefold::Interpreter::Create(model, bytes, arena, arena_bytes, o, &interp) !=
      edgefold::Status::kOk)
    return nullptr;
  return interp;
}

double TimeRun(edgefold::Interpreter* interp) {
  const auto start = Clock::now();
  if (interp->Invoke() != edgefold::Status::kOk) {
    std::fprintf(stderr, "Invoke failed\n");
    std::exit(1);
  }
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

void Print(const char* what, std::vector<double> us) {
  std::sort(us.begin(), us.end());
  std::printf("  %-22s median %7.1f us  min %7.1f us\n", what, us[us.size() / 2], us[0]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.efb [threads] [rounds]\n", argv[0]);
    return 2;
  }
  const size_t threads = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 300;
  std::ifstream file(argv[1], std::ios::binary);
  const std::vector<char> raw((std::istreambuf_iterator<char>(file)), {});
  uint8_t* model = static_cast<uint8_t*>(std::aligned_alloc(64, (raw.size() + 63) / 64 * 64));
  std::memcpy(model, raw.data(), raw.size());
  edgefold::ThreadPool pool(threads);
  edgefold::Options alone;
  alone.adapt_splits = false;
  edgefold::Options split = alone;
  pool.Configure(&split);
  edgefold::Interpreter* one = Open(model, raw.size(), alone);
  edgefold::Interpreter* many = Open(model, raw.size(), split);
  if (one == nullptr || many == nullptr || one->num_inputs() == 0) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  for (int i = 0; i < 50; ++i) TimeRun(one), TimeRun(many);  // inputs left as the arena holds
  std::vector<double> after_alone, after_split, alone_us;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 31; ++i) alone_us.push_back(TimeRun(one));
    after_alone.push_back(TimeRun(many));
    after_split.push_back(TimeRun(many));
    after_split.push_back(TimeRun(many));
  }
  std::printf("%s, %zu threads, %d rounds:\n", argv[1], threads, rounds);
  Print("alone", alone_us);
  Print("split after 31 alone", after_alone);
  Print("split after split", after_split);
  return 0;
}
