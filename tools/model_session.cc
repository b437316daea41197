#include "model_session.h"

#include <cstdio>
#include <cstdlib>

#include "npy.h"

namespace edgefold::tools {

void ModelSession::Log(void* user, const char* message) {
  static_cast<ModelSession*>(user)->log_.emplace_back(message);
}

std::string ModelSession::Describe(const char* call, Status status) {
  std::string s = path_ + ": " + call + " failed: " + StatusName(status);
  for (const std::string& m : log_) s += "\n  " + m;
  log_.clear();
  return s;
}

namespace {

// With --isa auto the runtime takes EDGEFOLD_ISA's level only when it names one this CPU and
// build run, and ignores it silently otherwise; the CLI says so ("avx2" is not a level name:
// it ran the AVX-512 table in a benchmark meant for AVX2).
void WarnOfIgnoredIsaOverride() {
  const char* name = std::getenv("EDGEFOLD_ISA");
  if (name == nullptr || *name == '\0') return;
  Isa forced = Isa::kAuto;
  if (!ParseIsa(name, &forced))
    std::fprintf(stderr, "edgefold: warning: EDGEFOLD_ISA=%s is not a level (auto, scalar, sse4.2, avx2+fma, "
                 "avx512, neon); ignored\n", name);
  else if (forced != Isa::kAuto && !IsaAvailable(forced))
    std::fprintf(stderr, "edgefold: warning: EDGEFOLD_ISA=%s is not available on this CPU/build; ignored\n", name);
}

}  // namespace

bool ModelSession::Open(const std::string& path, Isa isa, std::string* error, OpEndFn on_op_end,
                        void* on_op_end_user) {
  path_ = path;
  if (isa == Isa::kAuto) WarnOfIgnoredIsaOverride();
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
  size_t arena_bytes = 0;
  Status s = RequiredArenaBytes(model_.data.get(), model_.bytes, &arena_bytes, options);
  if (s != Status::kOk) { *error = Describe("RequiredArenaBytes", s); return false; }
  arena_ = AllocateAligned(arena_bytes);
  if (!arena_.data) {
    *error = path + ": cannot allocate an arena of " + std::to_string(arena_bytes) + " bytes";
    return false;
  }
  s = Interpreter::Create(model_.data.get(), model_.bytes, arena_.data.get(), arena_.bytes,
                          options, &interpreter_);
  if (s != Status::kOk) { *error = Describe("Interpreter::Create", s); return false; }
  return true;
}

void ModelSession::SetThreads(size_t threads) {
  pool_ = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
}

std::vector<int64_t> ViewShape(const TensorView& view) {
  std::vector<int64_t> shape;
  for (int d = 0; d < view.rank; ++d) shape.push_back(view.shape[d]);
  return shape;
}

}  // namespace edgefold::tools
