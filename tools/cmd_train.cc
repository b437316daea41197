// edgefold train M.efb --data X.npy --labels Y.npy [options] -o ADAPTED.efb
// Trains on the runtime's own training path (edgefold::Trainer), in one fixed arena.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "edgefold/trainer.h"
#include "edgefold_compiler/compiler.h"
#include "file_io.h"
#include "model_session.h"
#include "npy.h"
#include "progress.h"
#include "train_compile.h"
#include "train_int8.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold train MODEL.efb --data X.npy --labels Y.npy -o ADAPTED.efb [options]\n"
    "       edgefold train INT8_MODEL.efb --adapt-stats-only --data X.npy [--labels Y.npy] -o ADAPTED.efb\n"
    "\n"
    "Fine-tunes a model compiled with 'edgefold compile --train' on the device's code path:\n"
    "BatchNorm with batch statistics, softmax cross-entropy, backward, SGD with momentum.\n"
    "The output keeps BatchNorm unfolded with the new parameters and running statistics;\n"
    "'edgefold run' uses it in eval mode.\n"
    "\n"
    "options:\n"
    "  --epochs E            passes over the data (default 1)\n"
    "  --lr LR               learning rate (default 0.01)\n"
    "  --momentum M          SGD momentum (default 0.9)\n"
    "  --weight-decay WD     L2 penalty added to the gradient (default 0)\n"
    "  --bn-momentum B       running-statistics momentum, PyTorch convention (default 0.1)\n"
    "  --batch N             check the model's batch size (fixed at compile time)\n"
    "  --trainable SET       bn | bn+head | all: must be the set the model was compiled\n"
    "                        with (compile --train --trainable); default: the model's set\n"
    "  --no-shuffle          keep the data order (default: shuffle each epoch, --seed S)\n"
    "  --adapt-stats-only    only re-estimate BN statistics: the cumulative average of\n"
    "                        Algorithm 2 (or --bn-momentum's moving average if given).\n"
    "                        The one mode of an int8 model compiled with --quantize int8\n"
    "                        --adaptable: its int8 weights stay, the int32 biases and\n"
    "                        multipliers take the new statistics; --labels optional\n"
    "  --isa LEVEL           force a kernel level\n";

struct Session {
  AlignedBuffer model, arena;
  Trainer* trainer = nullptr;
  std::string log;
};

void Log(void* user, const char* message) {
  if (!PrintIfWarning(message)) *static_cast<std::string*>(user) += std::string("\n  ") + message;
}

bool ParseFloat(const ParsedArgs& a, const char* flag, float fallback, float* out, std::string* error) {
  const std::string text = a.Get(flag, "");
  if (text.empty()) { *out = fallback; return true; }
  char* end = nullptr;
  *out = std::strtof(text.c_str(), &end);
  if (*end != '\0' || !(*out >= 0.0f)) { *error = std::string(flag) + " needs a non-negative number"; return false; }
  return true;
}

// The trained model: the trainer writes its parameters and statistics into a copy.
std::vector<uint8_t> ExportModel(const Session& s) {
  std::vector<uint8_t> out(s.trainer->model_bytes());
  if (s.trainer->ExportModel(out.data(), out.size()) != Status::kOk) out.clear();
  return out;
}

double EvalAccuracy(Session& s, const NpyArray& x, const std::vector<int32_t>& y, size_t batches) {
  const size_t n = s.trainer->batch_size(), per = n * s.trainer->sample_elems(), k = s.trainer->num_classes();
  std::vector<float> logits(n * k);
  size_t correct = 0;
  for (size_t b = 0; b < batches; ++b) {
    if (s.trainer->Evaluate(x.f32.data() + b * per, logits.data()) != Status::kOk) return -1;
    for (size_t i = 0; i < n; ++i) {
      const float* row = logits.data() + i * k;
      correct += size_t(std::max_element(row, row + k) - row) == size_t(y[b * n + i]);
    }
  }
  return double(correct) / double(batches * n);
}

}  // namespace

int TrainCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--output", "--data", "--labels", "--epochs", "--lr", "--momentum", "--weight-decay",
                      "--bn-momentum", "--batch", "--trainable", "--seed", "--isa"};
  spec.bool_flags = {"--no-shuffle", "--adapt-stats-only"};
  spec.aliases = {{"-o", "--output"}};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs a;
  int code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &a, &code)) return code;
  std::string error;
  Isa isa = Isa::kAuto;
  AlignedBuffer model;
  const bool model_read = ReadFileAligned(a.positional[0], &model, &error);
  if (model_read && IsAdaptableInt8(model)) {   // its folded BatchNorm statistics adapt; labels optional
    if (a.Get("--output", "").empty() || a.Get("--data", "").empty() || !ParseIsa(a.Get("--isa", "auto").c_str(), &isa)) {
      std::fprintf(stderr, "edgefold train: missing or invalid option\n\n%s", kUsage);
      return kExitUsage;
    }
    return AdaptInt8(a, model, isa);
  }
  const std::string read_error = error;
  error.clear();
  TrainOptions t;
  int epochs = 1, batch_check = 0, seed = 0;
  const bool usage_ok =
      !a.Get("--output", "").empty() && !a.Get("--data", "").empty() && !a.Get("--labels", "").empty() &&
      ParseFloat(a, "--lr", 0.01f, &t.learning_rate, &error) && ParseFloat(a, "--momentum", 0.9f, &t.momentum, &error) &&
      ParseFloat(a, "--weight-decay", 0.0f, &t.weight_decay, &error) &&
      ParseFloat(a, "--bn-momentum", 0.1f, &t.bn_momentum, &error) &&
      ParseCount("--epochs", a.Get("--epochs", "1"), &epochs, &error) &&
      ParseCount("--batch", a.Get("--batch", "0"), &batch_check, &error) &&
      ParseCount("--seed", a.Get("--seed", "0"), &seed, &error) &&
      ParseTrainable(a.Get("--trainable", "model"), &t.trainable) && ParseIsa(a.Get("--isa", "auto").c_str(), &isa);
  if (!usage_ok) {
    std::fprintf(stderr, "edgefold train: %s\n\n%s", error.empty() ? "missing or invalid option" : error.c_str(), kUsage);
    return kExitUsage;
  }
  const bool stats_only = a.Has("--adapt-stats-only");
  if (stats_only && !a.Has("--bn-momentum")) t.stats_mode = StatsMode::kCumulativeAverage;

  Session s;
  Options o;
  o.isa = isa;
  o.log = Log;
  o.log_user = &s.log;
  size_t arena_bytes = 0;
  s.model = std::move(model);
  error = read_error;
  if (!model_read ||
      RequiredTrainingArenaBytes(s.model.data.get(), s.model.bytes, t, &arena_bytes, o) != Status::kOk ||
      !(s.arena = AllocateAligned(arena_bytes)).data ||
      Trainer::Create(s.model.data.get(), s.model.bytes, s.arena.data.get(), arena_bytes, t, o, &s.trainer) != Status::kOk) {
    std::fprintf(stderr, "edgefold train: %s: cannot train this model%s%s\n", a.positional[0].c_str(), error.c_str(), s.log.c_str());
    return kExitFailure;
  }
  Trainer& tr = *s.trainer;
  const size_t n = tr.batch_size(), sample = tr.sample_elems();
  if (batch_check != 0 && size_t(batch_check) != n) {
    std::fprintf(stderr, "edgefold train: the model was compiled for batch %zu; recompile with 'edgefold compile --train --batch %d'\n", n, batch_check);
    return kExitFailure;
  }
  NpyArray x;
  std::vector<int32_t> y;
  bool data_ok = ReadNpy(a.Get("--data", ""), &x, &error);
  if (data_ok && (x.dtype != NpyDType::kFloat32 || x.elems() % sample != 0)) {
    error = a.Get("--data", "") + ": needs float32 samples of " + std::to_string(sample) + " values";
    data_ok = false;
  }
  if (!data_ok || !ReadLabels(a.Get("--labels", ""), x.elems() / sample, tr.num_classes(), &y, &error)) {
    std::fprintf(stderr, "edgefold train: %s\n", error.c_str());
    return kExitFailure;
  }
  const size_t samples = y.size(), batches = samples / n;
  if (batches == 0) {
    std::fprintf(stderr, "edgefold train: %zu samples do not fill one batch of %zu\n", samples, n);
    return kExitFailure;
  }
  std::printf("training arena: %zu bytes, batch %zu, %zu batches per epoch (%zu samples left over)\n",
              arena_bytes, n, batches, samples - batches * n);
  std::printf("before: eval accuracy %.4f\n", EvalAccuracy(s, x, y, batches));
  std::vector<size_t> order(samples);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::vector<float> xb(n * sample);
  std::vector<int32_t> yb(n);
  if (stats_only) tr.ResetStatistics();
  for (int e = 0; e < epochs; ++e) {
    if (!a.Has("--no-shuffle") && !stats_only) std::shuffle(order.begin(), order.end(), rng);
    double loss_sum = 0;
    size_t correct = 0;
    Progress progress("epoch " + std::to_string(e + 1), batches);
    for (size_t b = 0; b < batches; ++b) {
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(xb.data() + i * sample, x.f32.data() + order[b * n + i] * sample, sample * sizeof(float));
        yb[i] = y[order[b * n + i]];
      }
      float loss = 0;
      int hits = 0;
      const Status st = stats_only ? tr.AdaptStatistics(xb.data()) : tr.TrainStep(xb.data(), yb.data(), &loss, &hits);
      if (st != Status::kOk) {
        std::fprintf(stderr, "edgefold train: step failed: %s%s\n", StatusName(st), s.log.c_str());
        return kExitFailure;
      }
      loss_sum += loss;
      correct += size_t(hits);
      progress.Update(b + 1, stats_only ? "" : "loss " + std::to_string(loss_sum / double(b + 1)).substr(0, 6));
    }
    progress.Finish();
    if (stats_only) std::printf("epoch %d/%d: BN statistics re-estimated over %zu batches\n", e + 1, epochs, batches);
    else std::printf("epoch %d/%d: loss %.4f, train accuracy %.4f (batch statistics)\n", e + 1, epochs,
                     loss_sum / double(batches), double(correct) / double(batches * n));
  }
  std::printf("after: eval accuracy %.4f\n", EvalAccuracy(s, x, y, batches));
  const std::vector<uint8_t> trained = ExportModel(s);
  if (trained.empty()) {
    std::fprintf(stderr, "edgefold train: could not export the trained model\n");
    return kExitFailure;
  }
  if (!compiler::WriteFileAtomic(a.Get("--output", ""), trained, &error)) {
    std::fprintf(stderr, "edgefold train: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf("wrote %s\n", a.Get("--output", "").c_str());
  return kExitOk;
}

}  // namespace edgefold::tools
