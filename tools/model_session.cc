#include "model_session.h"

#include <cstdio>
#include <cstring>

#include "npy.h"

namespace edgefold::tools {

bool PrintIfWarning(const char* message) {
  if (std::strncmp(message, "warning: ", 9) != 0) return false;
  std::fprintf(stderr, "edgefold: %s\n", message);
  return true;
}

void ModelSession::Log(void* user, const char* message) {
  if (!PrintIfWarning(message)) static_cast<ModelSession*>(user)->log_.emplace_back(message);
}

std::string ModelSession::Describe(const char* call, Status status) {
  std::string s = path_ + ": " + call + " failed: " + StatusName(status);
  for (const std::string& m : log_) s += "\n  " + m;
  log_.clear();
  return s;
}

bool ModelSession::Open(const std::string& path, Isa isa, std::string* error, OpEndFn on_op_end,
                        void* on_op_end_user) {
  path_ = path;
  if (!ReadFileAligned(path, &model_, error)) return false;
  if (isa != Isa::kAuto && !IsaAvailable(isa)) {
    *error = std::string("ISA '") + IsaName(isa) + "' is not available on this CPU/build";
    return false;
  }
  Options options;
  options.isa = isa;
  options.log = &ModelSession::Log;
  options.log_user = this;
  options.on_op_end = on_op_end;
  options.on_op_end_user = on_op_end_user;
  if (pool_) pool_->Configure(&options);
  options.adapt_splits = adapt_splits_;
  size_t arena_bytes = 0;
  Status s = RequiredArenaBytes(model_.data.get(), model_.bytes, &arena_bytes, options);
  if (s != Status::kOk) {
    *error = Describe("RequiredArenaBytes", s);
    return false;
  }
  arena_ = AllocateAligned(arena_bytes);
  if (!arena_.data) {
    *error = path + ": cannot allocate an arena of " + std::to_string(arena_bytes) + " bytes";
    return false;
  }
  s = Interpreter::Create(model_.data.get(), model_.bytes, arena_.data.get(), arena_.bytes, options,
                          &interpreter_);
  if (s != Status::kOk) {
    *error = Describe("Interpreter::Create", s);
    return false;
  }
  return true;
}

void ModelSession::SetThreads(size_t threads, bool adapt_splits) {
  pool_ = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  adapt_splits_ = adapt_splits;
}

std::vector<int64_t> ViewShape(const TensorView& view) {
  std::vector<int64_t> shape;
  for (int d = 0; d < view.rank; ++d) shape.push_back(view.shape[d]);
  return shape;
}

}  // namespace edgefold::tools
