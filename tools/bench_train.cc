#include "bench_train.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "edgefold/trainer.h"
#include "file_io.h"
#include "model_session.h"

namespace edgefold::tools {

bool TimeTrainSteps(const std::string& path, Isa isa, int warmup, int runs, TrainBenchResult* out,
                    std::string* error) {
  AlignedBuffer model;
  if (!ReadFileAligned(path, &model, error)) return false;
  std::string log;
  Options options;
  options.isa = isa;
  options.log = [](void* user, const char* m) {
    if (!PrintIfWarning(m)) *static_cast<std::string*>(user) += m;
  };
  options.log_user = &log;
  TrainOptions train;  // the model's trainable set
  size_t bytes = 0;
  Trainer* trainer = nullptr;
  if (RequiredTrainingArenaBytes(model.data.get(), model.bytes, train, &bytes, options) !=
      Status::kOk) {
    *error = path + ": not a trainable model (compile it with --train): " + log;
    return false;
  }
  AlignedBuffer arena = AllocateAligned(bytes);
  if (Trainer::Create(model.data.get(), model.bytes, arena.data.get(), bytes, train, options,
                      &trainer) != Status::kOk) {
    *error = path + ": " + log;
    return false;
  }
  const size_t n = trainer->batch_size();
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> x(n * trainer->sample_elems());
  for (float& v : x) v = value(rng);
  std::vector<int32_t> labels(n);
  for (size_t i = 0; i < n; ++i) labels[i] = static_cast<int32_t>(rng() % trainer->num_classes());
  for (int r = 0; r < warmup + runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = trainer->TrainStep(x.data(), labels.data(), nullptr, nullptr);
    const auto t1 = std::chrono::steady_clock::now();
    if (s != Status::kOk) {
      *error = std::string("TrainStep: ") + StatusName(s) + " " + log;
      return false;
    }
    if (r >= warmup) out->ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(out->ms.begin(), out->ms.end());
  out->arena_bytes = bytes;
  out->batch = n;
  out->isa = IsaName(isa == Isa::kAuto || !IsaAvailable(isa) ? DetectBestIsa() : isa);
  return true;
}

}  // namespace edgefold::tools
