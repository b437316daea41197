#include "runtime_exec.h"

#include <cstdlib>
#include <cstring>
#include <memory>

#include "edgefold/interpreter.h"
#include "edgefold/status.h"

namespace edgefold::conformance {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<uint8_t, FreeDeleter>;

AlignedBuffer AllocAligned(size_t bytes) {
  const size_t rounded = (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  return AlignedBuffer(
      static_cast<uint8_t*>(std::aligned_alloc(kArenaAlignment, rounded ? rounded : 64)));
}

void CaptureLog(void* user, const char* message) {
  std::string* log = static_cast<std::string*>(user);
  if (!log->empty()) *log += " | ";
  *log += message;
}

std::string Describe(Status s, const std::string& log) {
  std::string m = StatusName(s);
  if (!log.empty()) m += ": " + log;
  return m;
}

const NamedTensor* FindInput(const std::vector<NamedTensor>& inputs, const TensorView& view,
                             size_t index) {
  if (view.name && view.name[0]) {
    for (const NamedTensor& t : inputs) {
      if (t.name == view.name) return &t;
    }
    return nullptr;
  }
  return index < inputs.size() ? &inputs[index] : nullptr;
}

NamedTensor CopyOut(const TensorView& view) {
  NamedTensor t;
  t.name = view.name ? view.name : "";
  for (int d = 0; d < view.rank; ++d) t.dims.push_back(view.shape[d]);
  t.values.assign(view.data, view.data + view.elems);
  return t;
}

}  // namespace

ExecResult ExecuteModel(const std::vector<uint8_t>& efb, const std::vector<NamedTensor>& inputs,
                        Isa isa) {
  ExecResult r;
  std::string log;
  Options options;
  options.isa = isa;
  options.log = CaptureLog;
  options.log_user = &log;

  AlignedBuffer model = AllocAligned(efb.size());
  std::memcpy(model.get(), efb.data(), efb.size());
  size_t arena_bytes = 0;
  Status s = RequiredArenaBytes(model.get(), efb.size(), &arena_bytes, options);
  if (s != Status::kOk) {
    r.stage = "create";
    r.message = "RequiredArenaBytes: " + Describe(s, log);
    return r;
  }
  r.arena_bytes = arena_bytes;
  AlignedBuffer arena = AllocAligned(arena_bytes);
  Interpreter* interp = nullptr;
  s = Interpreter::Create(model.get(), efb.size(), arena.get(), arena_bytes, options, &interp);
  if (s != Status::kOk || interp == nullptr) {
    r.stage = "create";
    r.message = "Create with " + std::to_string(arena_bytes) + " arena bytes: " + Describe(s, log);
    return r;
  }
  for (size_t i = 0; i < interp->num_inputs(); ++i) {
    const TensorView view = interp->input(i);
    const NamedTensor* t = FindInput(inputs, view, i);
    if (t == nullptr) {
      r.stage = "set_input";
      r.message = "runtime input " + std::to_string(i) + " '" + view.name +
                  "' has no data in the test case";
      return r;
    }
    s = interp->SetInput(i, t->values.data(), t->values.size());
    if (s != Status::kOk) {
      r.stage = "set_input";
      r.message = "SetInput '" + t->name + "' (" + std::to_string(t->values.size()) +
                  " floats, runtime expects " + std::to_string(view.elems) +
                  "): " + Describe(s, log);
      return r;
    }
  }
  s = interp->Invoke();
  if (s != Status::kOk) {
    r.stage = "invoke";
    r.message = Describe(s, log);
    return r;
  }
  for (size_t i = 0; i < interp->num_outputs(); ++i)
    r.outputs.push_back(CopyOut(interp->output(i)));
  r.ok = true;
  return r;
}

}  // namespace edgefold::conformance
