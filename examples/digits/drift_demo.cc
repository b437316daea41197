// drift_demo: on-device adaptation with edgefold's Trainer, as a firmware would do it.
//
// The sensor drifted (lower contrast, brighter, noisier: make_drift.py) and the deployed
// model loses accuracy. In one fixed arena, with no heap and no host, the device
//   1. re-estimates every BatchNorm's statistics from unlabeled field data (Algorithm 2),
//   2. then fine-tunes the BN scale and shift for a few epochs on a small labeled set,
// and is evaluated in eval mode on held-out drifted images after each stage; finally the BNs
// are refolded into the convs in place, so the same arena serves inference.
//
// usage: drift_demo MODEL_TRAIN.efb DATA_DIR   (MODEL_TRAIN.efb: 'edgefold compile --train')
// Exit status 1 unless adaptation recovers the accuracy the drift cost.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "edgefold/trainer.h"
#include "file_io.h"
#include "npy.h"

namespace {

using edgefold::Status;
using edgefold::Trainer;
using edgefold::tools::NpyArray;

struct Split {
  NpyArray x, y;
  size_t batches = 0;
};

bool Load(const std::string& dir, const std::string& name, size_t batch, Split* s) {
  std::string error;
  if (!edgefold::tools::ReadNpy(dir + "/" + name + "_x.npy", &s->x, &error) ||
      !edgefold::tools::ReadNpy(dir + "/" + name + "_y.npy", &s->y, &error)) {
    std::fprintf(stderr, "drift_demo: %s\n", error.c_str());
    return false;
  }
  s->batches = s->y.elems() / batch;
  return true;
}

std::vector<int32_t> Labels(const Split& s, size_t b, size_t n) {
  return std::vector<int32_t>(s.y.i64.begin() + b * n, s.y.i64.begin() + (b + 1) * n);
}

double Accuracy(Trainer& t, const Split& s) {
  const size_t n = t.batch_size(), k = t.num_classes(), per = n * t.sample_elems();
  std::vector<float> logits(n * k);
  size_t correct = 0;
  for (size_t b = 0; b < s.batches; ++b) {
    if (t.Evaluate(s.x.f32.data() + b * per, logits.data()) != Status::kOk) return -1;
    const std::vector<int32_t> y = Labels(s, b, n);
    for (size_t i = 0; i < n; ++i)
      correct += size_t(std::max_element(&logits[i * k], &logits[i * k] + k) - &logits[i * k]) ==
                 size_t(y[i]);
  }
  return double(correct) / double(s.batches * n);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: drift_demo MODEL_TRAIN.efb DATA_DIR\n");
    return 2;
  }
  std::string error;
  edgefold::tools::AlignedBuffer model;
  if (!edgefold::tools::ReadFileAligned(argv[1], &model, &error)) {
    std::fprintf(stderr, "drift_demo: %s\n", error.c_str());
    return 1;
  }
  edgefold::TrainOptions options;
  options.trainable = edgefold::Trainable::kBatchNorm;
  options.stats_mode = edgefold::StatsMode::kCumulativeAverage;
  options.learning_rate = 0.01f;
  options.momentum = 0.9f;
  size_t arena_bytes = 0;
  if (edgefold::RequiredTrainingArenaBytes(model.data.get(), model.bytes, options, &arena_bytes) !=
      Status::kOk)
    return 1;
  // One arena for everything: on a device this is a static buffer.
  edgefold::tools::AlignedBuffer arena = edgefold::tools::AllocateAligned(arena_bytes);
  Trainer* trainer = nullptr;
  if (Trainer::Create(model.data.get(), model.bytes, arena.data.get(), arena_bytes, options,
                      edgefold::Options(), &trainer) != Status::kOk) {
    std::fprintf(stderr, "drift_demo: the model cannot be trained (compile it with --train)\n");
    return 1;
  }
  const size_t n = trainer->batch_size(), per = n * trainer->sample_elems();
  Split clean, adapt, eval;
  if (!Load(argv[2], "digits_test", n, &clean) || !Load(argv[2], "drift_adapt", n, &adapt) ||
      !Load(argv[2], "drift_eval", n, &eval))
    return 1;
  std::printf("training arena: %zu bytes (batch %zu)\n", arena_bytes, n);
  const double clean_acc = Accuracy(*trainer, clean), drifted = Accuracy(*trainer, eval);
  std::printf("clean test images:              accuracy %.4f\n", clean_acc);
  std::printf("drifted, deployed model:        accuracy %.4f\n", drifted);

  trainer->ResetStatistics();
  for (size_t b = 0; b < adapt.batches; ++b)
    if (trainer->AdaptStatistics(adapt.x.f32.data() + b * per) != Status::kOk) return 1;
  const double stats = Accuracy(*trainer, eval);
  std::printf("after BN statistics adaptation: accuracy %.4f  (%zu unlabeled images)\n", stats,
              adapt.batches * n);

  options.stats_mode = edgefold::StatsMode::kMomentum;
  trainer->set_options(options);
  for (int epoch = 0; epoch < 3; ++epoch) {
    double loss_sum = 0;
    for (size_t b = 0; b < adapt.batches; ++b) {
      const std::vector<int32_t> y = Labels(adapt, b, n);
      float loss = 0;
      if (trainer->TrainStep(adapt.x.f32.data() + b * per, y.data(), &loss, nullptr) != Status::kOk)
        return 1;
      loss_sum += loss;
    }
    std::printf("  BN fine-tuning epoch %d: loss %.4f\n", epoch + 1,
                loss_sum / double(adapt.batches));
  }
  const double tuned = Accuracy(*trainer, eval);
  std::printf("after 3 epochs on BN γ, β:      accuracy %.4f  (%zu labeled images)\n", tuned,
              adapt.batches * n);
  const size_t folded = trainer->Refold();
  const double refolded = Accuracy(*trainer, eval);
  std::printf(
      "refolded %zu BatchNorms for inference (no weight copies unless compiled with "
      "--refold-weights): accuracy %.4f\n",
      folded, refolded);
  const bool recovered = stats > drifted + 0.2 && tuned >= stats && refolded == tuned;
  std::printf("%s\n", recovered ? "OK: adaptation recovered the accuracy lost to drift"
                                : "FAIL: adaptation did not recover the accuracy");
  return recovered ? 0 : 1;
}
