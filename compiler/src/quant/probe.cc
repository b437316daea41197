#include "quant/probe.h"

#include "plan/plan_model.h"
#include "train/aligned_model.h"
#include "write/efb_writer.h"

namespace edgefold::compiler::quant {

std::string RunSamples(LoweredModel model, const std::vector<int>& outputs, const Samples& samples,
                       const OutputFn& fn) {
  model.outputs = outputs;
  PlanArena(&model, /*share_views=*/false);  // every probed tensor is an output anyway
  uint64_t weight_bytes = 0;
  const std::vector<uint8_t> bytes = WriteEfb(&model, &weight_bytes);
  const AlignedBuffer copy = AlignedCopy(bytes, bytes.size());
  std::string log;
  const Options options = CollectingOptions(&log);
  size_t arena_bytes = 0;
  Status s = RequiredArenaBytes(copy.get(), bytes.size(), &arena_bytes, options);
  if (s != Status::kOk) return std::string("RequiredArenaBytes: ") + StatusName(s) + log;
  const AlignedBuffer arena = AlignedCopy({}, arena_bytes);
  Interpreter* interp = nullptr;
  s = Interpreter::Create(copy.get(), bytes.size(), arena.get(), arena_bytes, options, &interp);
  if (s != Status::kOk) return std::string("Interpreter::Create: ") + StatusName(s) + log;
  for (size_t run = 0; run < samples.count; ++run) {
    s = interp->SetInput(0, samples.data + run * samples.run_elems, samples.run_elems);
    if (s == Status::kOk) s = interp->Invoke();
    if (s != Status::kOk) return std::string("Invoke: ") + StatusName(s) + log;
    for (size_t o = 0; o < interp->num_outputs(); ++o)
      fn(run, o, interp->output(o).data, interp->output(o).elems);
  }
  return "";
}

}  // namespace edgefold::compiler::quant
