// Two compiled plans of one network (say `compile --threads 1` and `--threads 2`) timed in one
// process at the same thread count, in alternating blocks of runs, so that the host's other
// load falls on both alike: per run and per op, the minimum and the median over all blocks.
// On a shared host the minimum is what a run costs when no other process took a core.
//   cmake --build build --target edgefold_runtime edgefold_thread_pool edgefold_kernels
//   g++ -O2 -std=c++17 -Iruntime/include bench/threads/plan_ab_bench.cc
//     build/runtime/libedgefold_runtime.a build/runtime/libedgefold_thread_pool.a
//     build/runtime/src/kernels/libedgefold_kernels.a -lpthread -o plan_ab_bench   (one line)
//   ./plan_ab_bench A.efb B.efb [threads] [blocks]     (default 2 threads, 200 blocks of 20 runs)
// Every run splits (adapt_splits off); inputs are left as the arena holds them.
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
constexpr int kRunsPerBlock = 20;

struct Plan {
  const char* path = nullptr;
  edgefold::Interpreter* interp = nullptr;
  Clock::time_point last;
  std::vector<std::vector<double>> op_us;  // [op][run]
  std::vector<double> run_us;
};

void OnOpEnd(void* user, size_t op) {
  Plan& p = *static_cast<Plan*>(user);
  const Clock::time_point now = Clock::now();
  if (p.op_us.size() <= op) p.op_us.resize(op + 1);
  p.op_us[op].push_back(std::chrono::duration<double, std::micro>(now - p.last).count());
  p.last = now;
}

bool Open(Plan* p, const edgefold::Options& base) {
  std::ifstream file(p->path, std::ios::binary);
  const std::vector<char> raw((std::istreambuf_iterator<char>(file)), {});
  if (raw.empty()) return false;
  auto* model = static_cast<uint8_t*>(std::aligned_alloc(64, (raw.size() + 63) / 64 * 64));
  std::memcpy(model, raw.data(), raw.size());
  edgefold::Options o = base;
  o.on_op_end = &OnOpEnd;
  o.on_op_end_user = p;
  size_t arena_bytes = 0;
  if (edgefold::RequiredArenaBytes(model, raw.size(), &arena_bytes, o) != edgefold::Status::kOk)
    return false;
  void* arena = std::aligned_alloc(64, (arena_bytes + 63) / 64 * 64);
  return edgefold::Interpreter::Create(model, raw.size(), arena, arena_bytes, o, &p->interp) ==
         edgefold::Status::kOk;
}

void Block(Plan* p, bool record) {
  for (int i = 0; i < kRunsPerBlock; ++i) {
    const Clock::time_point start = p->last = Clock::now();
    if (p->interp->Invoke() != edgefold::Status::kOk) {
      std::fprintf(stderr, "%s: Invoke failed\n", p->path);
      std::exit(1);
    }
    if (record)
      p->run_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  if (!record)
    for (auto& op : p->op_us) op.clear();
}

// "min/median" of `us` in microseconds.
void Print(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  std::printf(" %7.1f /%7.1f", us.empty() ? 0.0 : us[0], us.empty() ? 0.0 : us[us.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s A.efb B.efb [threads] [blocks]\n", argv[0]);
    return 2;
  }
  const size_t threads = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 2;
  const int blocks = argc > 4 ? std::atoi(argv[4]) : 200;
  edgefold::ThreadPool pool(threads);
  edgefold::Options base;
  base.adapt_splits = false;
  pool.Configure(&base);
  Plan a, b;
  a.path = argv[1], b.path = argv[2];
  if (!Open(&a, base) || !Open(&b, base)) {
    std::fprintf(stderr, "cannot open %s or %s\n", argv[1], argv[2]);
    return 1;
  }
  for (int i = 0; i < 5; ++i) Block(&a, false), Block(&b, false);
  for (int i = 0; i < blocks; ++i) Block(&a, true), Block(&b, true);
  std::printf("%zu threads, %d blocks of %d runs; min / median us\n", threads, blocks,
              kRunsPerBlock);
  std::printf("%-6s %-44s %17s %17s\n", "", "", "A", "B");
  std::printf("%-6s %-44s", "run", "");
  Print(a.run_us), Print(b.run_us);
  std::printf("\n");
  for (size_t op = 0; op < std::max(a.op_us.size(), b.op_us.size()); ++op) {
    std::printf("#%-5zu %-44.44s", op, a.interp->op_name(op));
    Print(op < a.op_us.size() ? a.op_us[op] : std::vector<double>());
    Print(op < b.op_us.size() ? b.op_us[op] : std::vector<double>());
    std::printf("\n");
  }
  return 0;
}
