// stream_demo: label-free streaming adaptation (Trainer::StreamStep) at batch 1, as a device
// would run it on a sensor stream: one image in, one prediction out, BatchNorm statistics
// adapted on the way, no labels, no backward.
//
// It measures, on the digits test images:
//   - recovery: the drifted images (make_drift.py) streamed once, online accuracy against the
//     deployed model's and against re-estimating the statistics on the whole drifted set
//     (the transductive upper reference, with the batch-statistics model);
//   - three stress streams, each against the deployed model on the same images: clean (no
//     drift), drifted but sorted by class, and a long stream mixing clean, the field drift
//     and a second drift in blocks.
// usage: stream_demo MODEL_B1.efb MODEL_BATCH.efb DATA_DIR
//   MODEL_B1: compile --train (batch 1); MODEL_BATCH: compile --train --batch 50 (reference)
// Exit status 1 unless streaming recovers >= 60 % of the reference's gain and no stress
// stream ends more than 0.5 points below the deployed model.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "edgefold/trainer.h"
#include "file_io.h"
#include "npy.h"

namespace {

using edgefold::Status;
using edgefold::Trainer;
using edgefold::tools::AlignedBuffer;

struct Images {
  std::vector<float> x;  // n × sample
  std::vector<int32_t> y;
};

struct Session {
  AlignedBuffer model, arena;
  Trainer* trainer = nullptr;
};

bool Open(const std::string& path, Session* s) {
  std::string error;
  if (!edgefold::tools::ReadFileAligned(path, &s->model, &error)) {
    std::fprintf(stderr, "stream_demo: %s\n", error.c_str());
    return false;
  }
  edgefold::TrainOptions options;
  options.stats_mode = edgefold::StatsMode::kCumulativeAverage;
  size_t bytes = 0;
  if (edgefold::RequiredTrainingArenaBytes(s->model.data.get(), s->model.bytes, options, &bytes) !=
      Status::kOk)
    return false;
  s->arena = edgefold::tools::AllocateAligned(bytes);
  return Trainer::Create(s->model.data.get(), s->model.bytes, s->arena.data.get(), bytes, options,
                         edgefold::Options(), &s->trainer) == Status::kOk;
}

bool Load(const std::string& dir, const std::string& name, Images* out) {
  edgefold::tools::NpyArray x, y;
  std::string error;
  if (!edgefold::tools::ReadNpy(dir + "/" + name + "_x.npy", &x, &error) ||
      !edgefold::tools::ReadNpy(dir + "/" + name + "_y.npy", &y, &error)) {
    std::fprintf(stderr, "stream_demo: %s\n", error.c_str());
    return false;
  }
  out->x.insert(out->x.end(), x.f32.begin(), x.f32.end());
  for (int64_t v : y.i64) out->y.push_back(static_cast<int32_t>(v));
  return true;
}

// The demo stops at the first runtime error (a device would report it and go on).
void Must(Status status, const char* what) {
  if (status == Status::kOk) return;
  std::fprintf(stderr, "stream_demo: %s failed: %s\n", what, edgefold::StatusName(status));
  std::exit(1);
}

size_t Argmax(const float* z, size_t k) { return size_t(std::max_element(z, z + k) - z); }

// A second drift, made here with a fixed seed: darker and more contrasted, noisier.
Images SecondDrift(const Images& clean) {
  Images d = clean;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(1e-7f, 1.0f);
  for (float& v : d.x) {
    const float noise = 0.05f * std::sqrt(-2.0f * std::log(u(rng))) * std::cos(6.2831853f * u(rng));
    v = std::min(1.0f, std::max(0.0f, 1.4f * v - 0.25f + noise));
  }
  return d;
}

Images Subset(const Images& a, const std::vector<size_t>& order, size_t sample) {
  Images out;
  for (size_t i : order) {
    out.x.insert(out.x.end(), a.x.begin() + i * sample, a.x.begin() + (i + 1) * sample);
    out.y.push_back(a.y[i]);
  }
  return out;
}

void Append(Images* to, const Images& from) {
  to->x.insert(to->x.end(), from.x.begin(), from.x.end());
  to->y.insert(to->y.end(), from.y.begin(), from.y.end());
}

// Deployed model (eval mode, the model's statistics), one image at a time.
double DeployedAccuracy(Trainer& t, const Images& s) {
  t.ResetStream();
  const size_t k = t.num_classes(), sample = t.sample_elems();
  std::vector<float> z(k);
  size_t correct = 0;
  for (size_t i = 0; i < s.y.size(); ++i) {
    Must(t.Evaluate(s.x.data() + i * sample, z.data()), "Evaluate");
    correct += Argmax(z.data(), k) == size_t(s.y[i]);
  }
  return double(correct) / double(s.y.size());
}

struct StreamResult {
  double accuracy = 0;       // online, over the whole stream
  double last_accuracy = 0;  // over its last quarter
  uint32_t resets = 0;
};

StreamResult Stream(Trainer& t, const Images& s, const edgefold::StreamOptions& o) {
  t.ResetStream();
  const size_t k = t.num_classes(), sample = t.sample_elems(), n = s.y.size();
  std::vector<float> z(k);
  size_t correct = 0, last = 0;
  edgefold::StreamReport report;
  for (size_t i = 0; i < n; ++i) {
    Must(t.StreamStep(s.x.data() + i * sample, z.data(), o, &report), "StreamStep");
    const bool hit = Argmax(z.data(), k) == size_t(s.y[i]);
    correct += hit;
    if (i >= n - n / 4) last += hit;
  }
  return {double(correct) / double(n), double(last) / double(n / 4), report.resets};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: stream_demo MODEL_B1.efb MODEL_BATCH.efb DATA_DIR\n");
    return 2;
  }
  Session one, batch;
  if (!Open(argv[1], &one) || !Open(argv[2], &batch) || one.trainer->batch_size() != 1) {
    std::fprintf(stderr, "stream_demo: needs a batch-1 and a batch model compiled with --train\n");
    return 1;
  }
  Trainer& t = *one.trainer;
  const size_t sample = t.sample_elems();
  Images clean, drifted;
  if (!Load(argv[3], "digits_test", &clean) || !Load(argv[3], "drift_adapt", &drifted) ||
      !Load(argv[3], "drift_eval", &drifted))
    return 1;
  const edgefold::StreamOptions options;

  // Recovery on the drifted set.
  const double deployed = DeployedAccuracy(t, drifted);
  Trainer& ref = *batch.trainer;
  const size_t nb = ref.batch_size(), batches = drifted.y.size() / nb;
  ref.ResetStatistics();
  for (size_t b = 0; b < batches; ++b)
    Must(ref.AdaptStatistics(drifted.x.data() + b * nb * sample), "AdaptStatistics");
  std::vector<float> z(nb * ref.num_classes());
  size_t correct = 0;
  for (size_t b = 0; b < batches; ++b) {
    Must(ref.Evaluate(drifted.x.data() + b * nb * sample, z.data()), "Evaluate");
    for (size_t i = 0; i < nb; ++i)
      correct +=
          Argmax(&z[i * ref.num_classes()], ref.num_classes()) == size_t(drifted.y[b * nb + i]);
  }
  const double reestimated = double(correct) / double(batches * nb);
  const StreamResult streamed = Stream(t, drifted, options);
  const double recovery = (streamed.accuracy - deployed) / std::max(1e-9, reestimated - deployed);
  std::printf("drifted images (%zu), batch 1:\n", drifted.y.size());
  std::printf("  deployed model                        %.4f\n", deployed);
  std::printf("  statistics re-estimated on all of them %.4f  (batch %zu, Algorithm 2)\n",
              reestimated, nb);
  std::printf(
      "  streaming adaptation, online          %.4f  (recovers %.0f %% of the gain, %u resets)\n",
      streamed.accuracy, 100 * recovery, streamed.resets);

  // Stress streams.
  std::vector<size_t> by_class(drifted.y.size());
  std::iota(by_class.begin(), by_class.end(), 0);
  std::stable_sort(by_class.begin(), by_class.end(),
                   [&](size_t a, size_t b) { return drifted.y[a] < drifted.y[b]; });
  Images mixed;
  const Images second = SecondDrift(clean);
  const Images* blocks[] = {&clean, &drifted, &second, &clean, &drifted, &second, &drifted, &clean};
  for (const Images* block : blocks) Append(&mixed, *block);
  struct Stress {
    const char* name;
    Images images;
  };
  const Stress stress[] = {{"clean (no drift)", clean},
                           {"drifted, sorted by class", Subset(drifted, by_class, sample)},
                           {"long mixed (clean/field/second drift)", mixed}};
  bool ok = recovery >= 0.6;
  std::printf("stress streams (online accuracy; deployed model on the same images):\n");
  for (const Stress& s : stress) {
    const double base = DeployedAccuracy(t, s.images);
    const StreamResult r = Stream(t, s.images, options);
    const bool held = r.accuracy >= base - 0.005;
    ok = ok && held;
    std::printf("  %-40s %.4f vs %.4f (last quarter %.4f, %u resets, %zu images)%s\n", s.name,
                r.accuracy, base, r.last_accuracy, r.resets, s.images.y.size(),
                held ? "" : "  <-- below the deployed model");
  }
  // Cost: a StreamStep against an eval-mode forward of the same graph (best of 5 passes).
  auto best_ns = [&](bool stream) {
    double best = 1e30;
    std::vector<float> zz(t.num_classes());
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < drifted.y.size(); ++i) {
        const float* xi = drifted.x.data() + i * sample;
        Must(stream ? t.StreamStep(xi, zz.data(), options) : t.Evaluate(xi, zz.data()), "timing");
      }
      const double ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, ns / double(drifted.y.size()));
    }
    return best;
  };
  const double eval_ns = best_ns(false), stream_ns = best_ns(true);
  std::printf("time per image: eval forward %.0f ns, StreamStep %.0f ns (%+.0f %%)\n", eval_ns,
              stream_ns, 100.0 * (stream_ns / eval_ns - 1.0));
  std::printf("%s\n",
              ok ? "OK: streaming adaptation recovered >= 60 % and held on every stress stream"
                 : "FAIL: streaming adaptation missed a target");
  return ok ? 0 : 1;
}
