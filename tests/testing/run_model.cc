#include "testing/run_model.h"

#include "testing/runtime_session.h"

namespace edgefold::testing {

RunResult RunModel(const std::vector<uint8_t>& model, const std::vector<std::vector<float>>& inputs,
                   Isa isa, const OpResolver* resolver) {
  RunResult r;
  const std::unique_ptr<InterpreterSession> s = CreateInterpreter(model, isa, resolver);
  r.status = s->status;
  for (size_t i = 0; r.status == Status::kOk && i < inputs.size(); ++i)
    r.status = s->interp->input(i).dtype == DType::kInt8
                   ? s->interp->QuantizeInput(i, inputs[i].data(), inputs[i].size())
                   : s->interp->SetInput(i, inputs[i].data(), inputs[i].size());
  if (r.status == Status::kOk) r.status = s->interp->Invoke();
  for (size_t i = 0; r.status == Status::kOk && i < s->interp->num_outputs(); ++i) {
    r.outputs.emplace_back(s->interp->output(i).elems);
    r.status = s->interp->DequantizeOutput(i, r.outputs.back().data(), r.outputs.back().size());
  }
  r.log = s->log;
  return r;
}

std::vector<Isa> AvailableIsas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kScalar, Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon})
    if (IsaAvailable(isa)) isas.push_back(isa);
  return isas;
}

}  // namespace edgefold::testing
