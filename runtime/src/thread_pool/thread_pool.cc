#include "edgefold/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace edgefold {

// One job at a time: workers sleep until `generation` moves, join the job (`active`), take
// task indices from `next` until none is left, and leave. The job's fields change only under
// the mutex while no worker is active, and ParallelFor returns only when every task has run
// and every worker has left: a slow worker never sees one job's index with another's function.
struct ThreadPool::Impl {
  static constexpr int kSpinIterations = 2000;
  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake, done;
  std::atomic<size_t> generation{0};
  std::atomic<size_t> active{0};   // changed under the mutex; read without it while spinning
  std::atomic<bool> stop{false};
  // The current job.
  void (*run)(void*, size_t) = nullptr;
  void* ctx = nullptr;
  size_t tasks = 0;
  std::atomic<size_t> next{0}, finished{0};

  void Work() {
    for (size_t i = next.fetch_add(1); i < tasks; i = next.fetch_add(1)) {
      run(ctx, i);
      finished.fetch_add(1);
    }
  }
  void Loop() {
    size_t seen = 0;
    for (;;) {
      // The next op's job usually follows within microseconds: spin a little before sleeping
      // (a wake-up through the condition variable costs tens of microseconds per op).
      for (int i = 0; i < kSpinIterations && generation.load(std::memory_order_acquire) == seen && !stop.load(); ++i)
        std::this_thread::yield();
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
        ++active;
      }
      Work();
      std::lock_guard<std::mutex> lock(mutex);
      --active;
      done.notify_all();
    }
  }
};

ThreadPool::ThreadPool(size_t threads) : impl_(new Impl) {
  for (size_t i = 1; i < std::max<size_t>(threads, 1); ++i) impl_->workers.emplace_back([this] { impl_->Loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
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

void ThreadPool::ParallelFor(void* pool, size_t tasks, void (*run)(void* ctx, size_t task), void* ctx) {
  Impl& p = *static_cast<ThreadPool*>(pool)->impl_;
  if (tasks == 0) return;
  if (p.workers.empty() || tasks == 1) {
    for (size_t i = 0; i < tasks; ++i) run(ctx, i);
    return;
  }
  std::unique_lock<std::mutex> lock(p.mutex);
  p.done.wait(lock, [&] { return p.active == 0; });   // stragglers of the last job have left
  p.run = run;
  p.ctx = ctx;
  p.tasks = tasks;
  p.next.store(0);
  p.finished.store(0);
  ++p.generation;
  lock.unlock();
  p.wake.notify_all();
  p.Work();
  // The other tasks usually end within microseconds of this thread's: spin before sleeping, since
  // a wake-up through the condition variable costs tens of microseconds, once per parallel step.
  const auto all_done = [&] { return p.finished.load() == p.tasks && p.active.load() == 0; };
  for (int i = 0; i < Impl::kSpinIterations && !all_done(); ++i) std::this_thread::yield();
  lock.lock();
  p.done.wait(lock, all_done);
}

}  // namespace edgefold
