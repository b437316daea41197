// Loads a .efb file and creates an interpreter in an arena the session owns: the path the
// CLI's run and bench commands share.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "edgefold/thread_pool.h"
#include "file_io.h"

namespace edgefold::tools {

// A runtime log line that is a warning (an EDGEFOLD_ISA it ignores) goes to stderr now, as
// "edgefold: warning: ..."; returns whether it was one (the rest belongs to an error message).
bool PrintIfWarning(const char* message);

class ModelSession {
 public:
  ModelSession() = default;
  ModelSession(const ModelSession&) = delete;  // the runtime's log callback holds `this`
  ModelSession& operator=(const ModelSession&) = delete;

  // Reads `path`, asks the runtime for the arena size, allocates it and creates the
  // interpreter. On failure `error` carries the status name and the runtime's messages.
  // on_op_end (optional) is passed to the runtime: called after every op of Invoke.
  bool Open(const std::string& path, Isa isa, std::string* error, OpEndFn on_op_end = nullptr,
            void* on_op_end_user = nullptr);

  // Before Open: run each op over `threads` threads (a ThreadPool the session owns; 1: none);
  // adapt_splits: Options::adapt_splits (false: every run splits).
  void SetThreads(size_t threads, bool adapt_splits = true);

  Interpreter& interpreter() { return *interpreter_; }
  size_t arena_bytes() const { return arena_.bytes; }
  size_t model_bytes() const { return model_.bytes; }
  // "<path>: <call> failed: <status>" plus the runtime's log lines since the last call.
  std::string Describe(const char* call, Status status);

 private:
  static void Log(void* user, const char* message);

  AlignedBuffer model_;
  AlignedBuffer arena_;
  std::unique_ptr<ThreadPool> pool_;
  bool adapt_splits_ = true;
  Interpreter* interpreter_ = nullptr;  // lives inside arena_
  std::string path_;
  std::vector<std::string> log_;
};

// "[1, 3, 32, 32]" for a runtime tensor view.
std::vector<int64_t> ViewShape(const TensorView& view);

}  // namespace edgefold::tools
