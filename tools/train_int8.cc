#include "train_int8.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "edgefold/int8_adapter.h"
#include "edgefold/model_generated.h"
#include "edgefold_compiler/compiler.h"
#include "npy.h"
#include "progress.h"

namespace edgefold::tools {
namespace {

void Log(void* user, const char* message) {
  *static_cast<std::string*>(user) += std::string("\n  ") + message;
}

// Quantizes an int8 input by the Quantize op's rule; copies a float one.
Status SetSamples(Interpreter* interp, const float* x, size_t elems) {
  return interp->input(0).dtype == DType::kInt8 ? interp->QuantizeInput(0, x, elems)
                                                : interp->SetInput(0, x, elems);
}

double Accuracy(Interpreter* interp, const NpyArray& x, const std::vector<int32_t>& y,
                size_t batches) {
  const size_t per = interp->input(0).elems, n = static_cast<size_t>(interp->input(0).shape[0]);
  const size_t out = interp->output(0).elems, classes = out / n;
  std::vector<float> logits(out);
  size_t correct = 0;
  for (size_t b = 0; b < batches; ++b) {
    if (SetSamples(interp, x.f32.data() + b * per, per) != Status::kOk ||
        interp->Invoke() != Status::kOk ||
        interp->DequantizeOutput(0, logits.data(), out) != Status::kOk)
      return -1;
    for (size_t i = 0; i < n; ++i) {
      const float* row = logits.data() + i * classes;
      correct += size_t(std::max_element(row, row + classes) - row) == size_t(y[b * n + i]);
    }
  }
  return double(correct) / double(batches * n);
}

}  // namespace

bool IsAdaptableInt8(const AlignedBuffer& model) {
  flatbuffers::Verifier verifier(model.data.get(), model.bytes);
  if (!fb::VerifyModelBuffer(verifier)) return false;
  for (const fb::Operator* op : *fb::GetModel(model.data.get())->operators())
    if (op->bn_adapt() != nullptr) return true;
  return false;
}

namespace {

// The samples --data holds (and their --labels), whole batches of the model's input.
struct AdaptData {
  NpyArray x;
  std::vector<int32_t> y;
  size_t per = 0, n = 0, samples = 0, batches = 0;  // per: floats of one batch; n: its samples
};

bool ReadAdaptData(const ParsedArgs& a, Interpreter* interp, AdaptData* d, std::string* error) {
  d->per = interp->input(0).elems;
  d->n = static_cast<size_t>(interp->input(0).shape[0]);
  const size_t per = d->per, n = d->n;
  bool ok = ReadNpy(a.Get("--data", ""), &d->x, error);
  if (ok && (d->x.dtype != NpyDType::kFloat32 || d->x.elems() % (per / n) != 0)) {
    *error =
        a.Get("--data", "") + ": needs float32 samples of " + std::to_string(per / n) + " values";
    ok = false;
  }
  d->samples = ok ? d->x.elems() / (per / n) : 0;
  d->batches = d->samples / n;
  if (ok && a.Has("--labels"))
    ok = ReadLabels(a.Get("--labels", ""), d->samples, interp->output(0).elems / n, &d->y, error);
  if (ok && d->batches == 0) {
    *error = "the data do not fill one batch of " + std::to_string(n);
    ok = false;
  }
  return ok;
}

// `epochs` passes over the batches, each adapting the statistics; false after printing why.
bool AdaptEpochs(Int8Adapter* adapter, const AdaptData& d, const AdaptOptions& adapt, int epochs,
                 const std::string& log) {
  Interpreter* interp = adapter->interpreter();
  for (int e = 0; e < epochs; ++e) {
    Progress progress("epoch " + std::to_string(e + 1), d.batches);
    for (size_t b = 0; b < d.batches; ++b) {
      Status st = SetSamples(interp, d.x.f32.data() + b * d.per, d.per);
      if (st == Status::kOk) st = adapter->Adapt(adapt);
      if (st != Status::kOk) {
        std::fprintf(stderr, "edgefold train: adaptation failed: %s%s\n", StatusName(st),
                     log.c_str());
        return false;
      }
      progress.Update(b + 1, "");
    }
    progress.Finish();
    std::printf("epoch %d/%d: BN statistics of the int8 layers re-estimated over %zu batches\n",
                e + 1, epochs, d.batches);
  }
  return true;
}

// The adapter in an arena of its own size; nullptr when the model cannot adapt.
Int8Adapter* CreateAdapter(const AlignedBuffer& model, const Options& o, AlignedBuffer* arena,
                           size_t* arena_bytes) {
  Int8Adapter* adapter = nullptr;
  if (RequiredInt8AdapterArenaBytes(model.data.get(), model.bytes, arena_bytes, o) != Status::kOk ||
      !(*arena = AllocateAligned(*arena_bytes)).data ||
      Int8Adapter::Create(model.data.get(), model.bytes, arena->data.get(), *arena_bytes, o,
                          &adapter) != Status::kOk)
    return nullptr;
  return adapter;
}

}  // namespace

int AdaptInt8(const ParsedArgs& a, const AlignedBuffer& model, Isa isa) {
  const std::string path = a.positional[0];
  if (!a.Has("--adapt-stats-only")) {
    std::fprintf(
        stderr,
        "edgefold train: %s is an int8 model: only its BatchNorm statistics adapt; add "
        "--adapt-stats-only (training the weights needs the float model compiled with --train)\n",
        path.c_str());
    return kExitUsage;
  }
  std::string log, error;
  Options o;
  o.isa = isa;
  o.log = Log;
  o.log_user = &log;
  AdaptOptions adapt;
  if (a.Has("--bn-momentum")) {
    adapt.mode = StatsMode::kMomentum;
    adapt.momentum = std::strtof(a.Get("--bn-momentum", "").c_str(), nullptr);
  }
  int epochs = 1;
  if (!ParseCount("--epochs", a.Get("--epochs", "1"), &epochs, &error)) {
    std::fprintf(stderr, "edgefold train: %s\n", error.c_str());
    return kExitUsage;
  }
  size_t arena_bytes = 0;
  AlignedBuffer arena;
  Int8Adapter* adapter = CreateAdapter(model, o, &arena, &arena_bytes);
  if (adapter == nullptr) {
    std::fprintf(stderr, "edgefold train: %s: cannot adapt this model%s\n", path.c_str(),
                 log.c_str());
    return kExitFailure;
  }
  Interpreter* interp = adapter->interpreter();
  AdaptData d;
  if (!ReadAdaptData(a, interp, &d, &error)) {
    std::fprintf(stderr, "edgefold train: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf(
      "int8 adaptation: %zu layers, arena %zu bytes, batch %zu, %zu batches per epoch (%zu samples "
      "left over)\n",
      adapter->num_layers(), arena_bytes, d.n, d.batches, d.samples - d.batches * d.n);
  if (!d.y.empty()) std::printf("before: accuracy %.4f\n", Accuracy(interp, d.x, d.y, d.batches));
  if (!AdaptEpochs(adapter, d, adapt, epochs, log)) return kExitFailure;
  size_t held = 0;
  for (size_t i = 0; i < adapter->num_layers(); ++i) held += adapter->layer(i).held_channels;
  if (held > 0)
    std::printf("warning: %zu channel updates left the int8 range and kept their last constants\n",
                held);
  if (!d.y.empty()) std::printf("after: accuracy %.4f\n", Accuracy(interp, d.x, d.y, d.batches));
  std::vector<uint8_t> out(model.bytes);
  if (adapter->ExportModel(out.data(), out.size()) != Status::kOk ||
      !compiler::WriteFileAtomic(a.Get("--output", ""), out, &error)) {
    std::fprintf(stderr, "edgefold train: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf("wrote %s\n", a.Get("--output", "").c_str());
  return kExitOk;
}

}  // namespace edgefold::tools
