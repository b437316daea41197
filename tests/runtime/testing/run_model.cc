#include "testing/run_model.h"

#include "testing/efb_builder.h"

namespace edgefold::testing {

namespace {
void AppendLog(void* user, const char* message) {
  auto* log = static_cast<std::string*>(user);
  *log += message;
  *log += '\n';
}
}  // namespace

RunResult RunModel(const std::vector<uint8_t>& model, const std::vector<std::vector<float>>& inputs,
                   Isa isa) {
  RunResult r;
  AlignedBuffer bytes(model);
  Options options;
  options.isa = isa;
  options.log = AppendLog;
  options.log_user = &r.log;
  size_t arena_bytes = 0;
  r.status = RequiredArenaBytes(bytes.data(), bytes.size(), &arena_bytes, options);
  if (r.status != Status::kOk) return r;
  AlignedBuffer arena(arena_bytes);
  Interpreter* interp = nullptr;
  r.status = Interpreter::Create(bytes.data(), bytes.size(), arena.data(), arena_bytes, options, &interp);
  if (r.status != Status::kOk) return r;
  for (size_t i = 0; i < inputs.size(); ++i) {
    r.status = interp->SetInput(i, inputs[i].data(), inputs[i].size());
    if (r.status != Status::kOk) return r;
  }
  r.status = interp->Invoke();
  if (r.status != Status::kOk) return r;
  for (size_t i = 0; i < interp->num_outputs(); ++i) {
    const TensorView v = interp->output(i);
    r.outputs.emplace_back(v.data, v.data + v.elems);
  }
  return r;
}

std::vector<Isa> AvailableIsas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kScalar, Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon})
    if (IsaAvailable(isa)) isas.push_back(isa);
  return isas;
}

}  // namespace edgefold::testing
