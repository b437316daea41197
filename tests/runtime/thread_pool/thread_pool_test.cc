// ThreadPool::ParallelFor: every task of every job runs exactly once and its writes are seen by
// the caller when ParallelFor returns, over many back-to-back jobs of changing sizes (the
// hand-off without a lock: a worker must never run one job's index with another's function or
// context), with more threads than cores, and across idle gaps long enough for workers to sleep.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "edgefold/thread_pool.h"

namespace edgefold {
namespace {

// Task i adds `tag` + i to its own slot; a task run twice, run with another job's context or
// not run at all leaves a wrong sum.
struct Job {
  std::vector<long> slots;
  long tag = 0;
};

void AddTag(void* ctx, size_t task) {
  Job& job = *static_cast<Job*>(ctx);
  job.slots[task] += job.tag + static_cast<long>(task);
}

void RunJobs(size_t threads, int jobs, bool with_gaps) {
  ThreadPool pool(threads);
  Job a, b;  // alternating contexts: a stale context would write into the other job's slots
  // Up to 100 tasks: the pool hands out jobs of up to 64 through a bit mask, larger ones by count.
  a.slots.assign(100, 0);
  b.slots.assign(100, 0);
  std::vector<long> want_a(100, 0), want_b(100, 0);
  for (int j = 0; j < jobs; ++j) {
    Job& job = j % 2 == 0 ? a : b;
    std::vector<long>& want = j % 2 == 0 ? want_a : want_b;
    job.tag = 1000L * (j + 1);
    const size_t tasks = 1 + static_cast<size_t>(j) % 100;
    ThreadPool::ParallelFor(&pool, tasks, &AddTag, &job);
    for (size_t t = 0; t < tasks; ++t) want[t] += job.tag + static_cast<long>(t);
    ASSERT_EQ(job.slots, want) << "job " << j << " of " << tasks << " tasks on " << threads
                               << " threads";
    if (with_gaps && j % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(a.slots, want_a);
  EXPECT_EQ(b.slots, want_b);
}

TEST(ThreadPool, EveryTaskRunsOnceInBackToBackJobs) {
  for (size_t threads : {1, 2, 3}) RunJobs(threads, 20000, false);
}

TEST(ThreadPool, MoreThreadsThanCores) {
  RunJobs(2 * std::max(1u, std::thread::hardware_concurrency()) + 1, 3000, false);
}

TEST(ThreadPool, WorkersThatSleptJoinAgain) { RunJobs(3, 600, true); }

TEST(ThreadPool, ZeroAndOneTaskRunOnTheCaller) {
  ThreadPool pool(2);
  Job job;
  job.slots.assign(1, 0);
  job.tag = 5;
  ThreadPool::ParallelFor(&pool, 0, &AddTag, &job);
  EXPECT_EQ(job.slots[0], 0);
  ThreadPool::ParallelFor(&pool, 1, &AddTag, &job);
  EXPECT_EQ(job.slots[0], 5);
}

}  // namespace
}  // namespace edgefold
