// A fixed pool of std::threads for hosted builds (Linux, macOS): plug it into Options so that
// Invoke splits each op's work over `threads` threads. Firmware on an RTOS supplies its own
// Options::parallel_for instead; MCU builds do not compile this file.
//
//   edgefold::ThreadPool pool(4);
//   edgefold::Options options;
//   pool.Configure(&options);   // then Interpreter::Create(..., options, ...)
//
// The threads start in the constructor and stop in the destructor; a parallel_for allocates
// nothing. One parallel_for at a time (the runtime never nests them): one pool per interpreter
// that runs concurrently with others.
#pragma once
#include <cstddef>

#include "edgefold/interpreter.h"

namespace edgefold {

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);  // threads − 1 workers; the calling thread is the last
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t threads() const;
  // Sets options->parallel_for, parallel_user and num_threads to this pool.
  void Configure(Options* options);
  // An Options::parallel_for (user: the ThreadPool).
  static void ParallelFor(void* pool, size_t tasks, void (*run)(void* ctx, size_t task), void* ctx);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace edgefold
