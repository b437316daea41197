#include "edgefold/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace edgefold {
namespace {

// A spinning thread's pause: it stays in user space. sched_yield in its place is a system call,
// and in a VM one costs about a microsecond: a parallel step then cost 2–2.5 µs on top of its
// work, 1.2–1.5 µs with pauses and the mutex, 0.5–0.8 µs without the mutex (AMD Zen 5 VM,
// bench/threads/handoff_bench.cc).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// The next op's job usually follows within microseconds: spin that long before sleeping (a
// wake-up through the condition variable costs tens of microseconds).
constexpr auto kSpin = std::chrono::microseconds(200);
// The spin counts only the time the thread ran: a round of 64 polls takes a microsecond or two
// (a few on cores with a slow pause), so a longer gap between two clock reads is time the thread
// was descheduled (preempted, or another thread ran after its yield), counted as at most this.
// Counted in wall-clock time, one preemption (milliseconds on a shared host) used up the whole
// spin and the worker slept through the next ops' jobs, waking on the calling thread's CPU.
constexpr auto kMaxRound = std::chrono::microseconds(20);

// Spins until ready() or kSpin of its own running time has passed (the clock read every 64
// pauses); returns ready(). Every 16th round yields once, so that a pool with more threads than
// free cores still lets the thread holding a task run.
template <class Ready>
bool SpinUntil(const Ready& ready) {
  auto last = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration spun{0};
  for (unsigned round = 1;; ++round) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      CpuRelax();
    }
    const auto now = std::chrono::steady_clock::now();
    spun += std::min<std::chrono::steady_clock::duration>(now - last, kMaxRound);
    last = now;
    if (spun > kSpin) return ready();
    if (round % 16 == 0) std::this_thread::yield();
  }
}

// Waits for ready() however long it takes: spinning first, then yielding the core to the
// thread it waits for (a worker descheduled inside a task).
template <class Ready>
void WaitUntil(const Ready& ready) {
  if (!SpinUntil(ready))
    while (!ready()) std::this_thread::yield();
}

}  // namespace

// One job at a time, published without a lock. `generation` is odd while the calling thread
// writes a job's fields and even once they are published. A worker that sees a new even
// generation g joins it (`active` + 1) and then checks that the generation is still g; the
// caller, after making it odd, waits until no worker is active before it writes. Both sides
// store and then load the other's variable (sequentially consistent), so either the caller
// sees the worker and waits, or the worker sees the odd generation and backs off: a worker never
// runs one job's index with another's function. Workers that spun kSpin (of their own running
// time) without a job sleep on `wake`; the caller notifies only when one is asleep.
struct ThreadPool::Impl {
  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake;
  std::atomic<size_t> generation{0};
  std::atomic<size_t> active{0};    // workers inside a job
  std::atomic<size_t> sleepers{0};  // workers waiting on `wake`
  std::atomic<bool> stop{false};
  // The current job.
  void (*run)(void*, size_t) = nullptr;
  void* ctx = nullptr;
  size_t tasks = 0;
  std::atomic<size_t> finished{0};
  // Tasks not yet taken, bit i for task i (jobs of up to 64 tasks; beyond, `next` counts). Thread
  // t (the caller 0, worker w: w) takes task t first, then whichever are left: so with one task
  // per thread each thread gets the same part of every op (the same output channels or rows,
  // whose data its cache holds from the op before), and a late thread's task still goes to one
  // that is free. Taken in index order instead, the caller or a worker got task 0 as the race
  // went, and the next op read its part from the other core's cache.
  std::atomic<uint64_t> untaken{0};
  std::atomic<size_t> next{0};
  static constexpr size_t kMaskTasks = 64;

  void Finish(size_t i) {
    run(ctx, i);
    finished.fetch_add(1, std::memory_order_release);
  }
  bool Take(size_t i) {
    const uint64_t bit = uint64_t{1} << i;
    return (untaken.fetch_and(~bit) & bit) != 0;
  }
  void Work(size_t home) {
    if (tasks > kMaskTasks) {
      for (size_t i = next.fetch_add(1); i < tasks; i = next.fetch_add(1)) Finish(i);
      return;
    }
    if (home < tasks && Take(home)) Finish(home);
    for (uint64_t left = untaken.load(); left != 0; left = untaken.load()) {
      const size_t i = static_cast<size_t>(__builtin_ctzll(left));
      if (Take(i)) Finish(i);
    }
  }
  void Loop(size_t home) {
    size_t seen = 0;
    for (;;) {
      size_t g = 0;
      // Sequentially consistent, like every access of the hand-off's two-sided checks (here
      // against `sleepers`: an acquire load may pass the increment on ARM).
      const auto job = [&] {
        g = generation.load();
        return (g != seen && g % 2 == 0) || stop.load(std::memory_order_relaxed);
      };
      if (!SpinUntil(job)) {
        std::unique_lock<std::mutex> lock(mutex);
        ++sleepers;
        wake.wait(lock, job);
        --sleepers;
      }
      if (stop.load()) return;
      ++active;
      if (generation.load() != g) {  // the caller is writing the next job: look again
        --active;
        continue;
      }
      seen = g;
      Work(home);
      active.fetch_sub(1, std::memory_order_release);
    }
  }
};

ThreadPool::ThreadPool(size_t threads) : impl_(new Impl) {
  for (size_t i = 1; i < std::max<size_t>(threads, 1); ++i)
    impl_->workers.emplace_back([this, i] { impl_->Loop(i); });
}

ThreadPool::~ThreadPool() {
  impl_->stop = true;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);  // a worker between its check and its wait
  }
  impl_->wake.notify_all();
  for (std::thread& t : impl_->workers) t.join();
  delete impl_;
}

size_t ThreadPool::threads() const { return impl_->workers.size() + 1; }

void ThreadPool::Configure(Options* options) {
  options->parallel_for = &ThreadPool::ParallelFor;
  options->parallel_user = this;
  options->num_threads = threads();
}

void ThreadPool::ParallelFor(void* pool, size_t tasks, void (*run)(void* ctx, size_t task),
                             void* ctx) {
  Impl& p = *static_cast<ThreadPool*>(pool)->impl_;
  if (tasks == 0) return;
  if (p.workers.empty() || tasks == 1) {
    for (size_t i = 0; i < tasks; ++i) run(ctx, i);
    return;
  }
  ++p.generation;  // odd: writing
  WaitUntil(
      [&] { return p.active.load() == 0; });  // stragglers of the last job leave within a task
  p.run = run;
  p.ctx = ctx;
  p.tasks = tasks;
  p.next.store(0, std::memory_order_relaxed);
  p.untaken.store(tasks >= Impl::kMaskTasks ? ~uint64_t{0} : (uint64_t{1} << tasks) - 1,
                  std::memory_order_relaxed);
  p.finished.store(0, std::memory_order_relaxed);
  ++p.generation;  // even: published
  if (p.sleepers.load() != 0) {
    { std::lock_guard<std::mutex> lock(p.mutex); }  // a worker between its check and its wait
    p.wake.notify_all();
  }
  p.Work(0);
  // The other tasks usually end within microseconds of this thread's.
  WaitUntil([&] { return p.finished.load(std::memory_order_acquire) == p.tasks; });
}

}  // namespace edgefold
