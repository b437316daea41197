// Splitting one op's work over the caller's threads (Options::parallel_for).
//
// Work is split statically over independent output rows (GEMM rows = output channels,
// depthwise channels) or pixels (GEMM columns in runs of 64, output rows), never over a
// reduction: every output element is computed by the same code in the same order whatever the
// thread count, so results are bit-identical. A task gets at least Parallel::min_work
// multiply-adds (Options::min_task_work, default kMinTaskWork): below that the hand-off costs
// more than it saves.
#pragma once
#include <algorithm>
#include <cstddef>

#include "edgefold/types.h"

namespace edgefold::internal {

// 16 K, below the 64–100 K peers use: with the pool's workers spinning between ops a hand-off
// costs about a microsecond, and a small op left to one thread also reads the half of its input
// the other thread's cache holds (the previous op split the same channels). At two threads on
// AMD Zen 3, 64 K → 16 K: MobileNetV1-0.25 VWW −10…−20 %, DS-CNN −15 %, ResNet-8 −3 %,
// MobileNetV3-small and ShuffleNetV2 −2 % (bench/README.md). Callers whose threads wake slower
// (an RTOS's parallel_for) raise it through Options::min_task_work.
constexpr size_t kMinTaskWork = 16 * 1024;

struct Parallel {
  ParallelForFn run = nullptr;
  void* user = nullptr;
  size_t threads = 1;
  size_t min_work = kMinTaskWork;
};
// An elementwise op's work per element in those units: memory-bound, a value costs about as
// much as four multiply-adds, so a task gets at least min_work / 4 values (4 K by default).
constexpr size_t kElementWork = 4;

// f(task, begin, end) over [0, rows) split into at most p->threads ranges of at least
// p->min_work / work_per_row rows, each boundary a multiple of `align` rows (GEMM row tiles);
// task < p->threads numbers the range (for per-task scratch); one range runs on the calling
// thread.
#if defined(EDGEFOLD_SINGLE_THREAD)
// Microcontroller builds: one core, so the split compiles out (Options::parallel_for is ignored),
// and so does every schedule only threads take (kMultiThreaded guards them: flash).
constexpr bool kMultiThreaded = false;
template <class F>
void ForEachRowTask(const Parallel*, size_t rows, size_t, size_t, F&& f) {
  f(size_t{0}, size_t{0}, rows);
}
#else
constexpr bool kMultiThreaded = true;
template <class F>
void ForEachRowTask(const Parallel* p, size_t rows, size_t work_per_row, size_t align, F&& f) {
  size_t tasks = 1;
  if (p != nullptr && p->run != nullptr && p->threads > 1 && rows > align) {
    const size_t min_rows = std::max<size_t>(1, p->min_work / std::max<size_t>(1, work_per_row));
    const size_t units = (rows + align - 1) / align;
    tasks = std::min({p->threads, units, std::max<size_t>(1, rows / min_rows)});
  }
  if (tasks <= 1) {
    f(size_t{0}, size_t{0}, rows);
    return;
  }
  struct Split {
    F* f;
    size_t rows, units, tasks, align;
  } split{&f, rows, (rows + align - 1) / align, tasks, align};
  p->run(
      p->user, tasks,
      [](void* ctx, size_t i) {
        const Split& s = *static_cast<const Split*>(ctx);
        const size_t begin = std::min(s.rows, s.units * i / s.tasks * s.align);
        const size_t end = std::min(s.rows, s.units * (i + 1) / s.tasks * s.align);
        if (begin < end) (*s.f)(i, begin, end);
      },
      &split);
}
#endif

// The same, f(begin, end) without the task's index.
template <class F>
void ForEachRowRange(const Parallel* p, size_t rows, size_t work_per_row, size_t align, F&& f) {
  ForEachRowTask(p, rows, work_per_row, align,
                 [&f](size_t, size_t begin, size_t end) { f(begin, end); });
}

}  // namespace edgefold::internal
