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
    "       edgefold train INT8_MODEL.efb --adapt-stats-only --data X.npy [--labels Y.npy] -o "
    "ADAPTED.efb\n"
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
    "  --isa LEVEL           force a kernel level (auto, scalar, sse4.2, avx2+fma or\n"
    "                        avx2+vnni, avx512, neon)\n";

struct Session {
  AlignedBuffer model, arena;
  size_t arena_bytes = 0;
  Trainer* trainer = nullptr;
  std::string log;
};

// The float model's flags (the int8 --adapt-stats-only path reads its own: train_int8.h).
struct TrainFlags {
  TrainOptions options;
  Isa isa = Isa::kAuto;
  int epochs = 1, batch_check = 0, seed = 0;
  bool stats_only = false, shuffle = true;
};

void Log(void* user, const char* message) {
  if (!PrintIfWarning(message)) *static_cast<std::string*>(user) += std::string("\n  ") + message;
}

bool ParseFloat(const ParsedArgs& a, const char* flag, float fallback, float* out,
                std::string* error) {
  const std::string text = a.Get(flag, "");
  if (text.empty()) {
    *out = fallback;
    return true;
  }
  char* end = nullptr;
  *out = std::strtof(text.c_str(), &end);
  if (*end != '\0' || !(*out >= 0.0f)) {
    *error = std::string(flag) + " needs a non-negative number";
    return false;
  }
  return true;
}

// The model with the trained parameters and statistics (Trainer::ExportModel).
bool ExportModel(const Session& s, std::vector<uint8_t>* out) {
  out->resize(s.trainer->model_bytes());
  return s.trainer->ExportModel(out->data(), out->size()) == Status::kOk;
}

double EvalAccuracy(Session& s, const NpyArray& x, const std::vector<int32_t>& y, size_t batches) {
  const size_t n = s.trainer->batch_size(), per = n * s.trainer->sample_elems(),
               k = s.trainer->num_classes();
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

// The flags of a float model; false with `error` (possibly empty) on a usage error.
bool ParseTrainFlags(const ParsedArgs& a, TrainFlags* f, std::string* error) {
  TrainOptions& t = f->options;
  const bool ok = !a.Get("--output", "").empty() && !a.Get("--data", "").empty() &&
                  !a.Get("--labels", "").empty() &&
                  ParseFloat(a, "--lr", 0.01f, &t.learning_rate, error) &&
                  ParseFloat(a, "--momentum", 0.9f, &t.momentum, error) &&
                  ParseFloat(a, "--weight-decay", 0.0f, &t.weight_decay, error) &&
                  ParseFloat(a, "--bn-momentum", 0.1f, &t.bn_momentum, error) &&
                  ParseCount("--epochs", a.Get("--epochs", "1"), &f->epochs, error) &&
                  ParseCount("--batch", a.Get("--batch", "0"), &f->batch_check, error) &&
                  ParseCount("--seed", a.Get("--seed", "0"), &f->seed, error) &&
                  ParseTrainable(a.Get("--trainable", "model"), &t.trainable) &&
                  ParseIsa(a.Get("--isa", "auto").c_str(), &f->isa);
  f->stats_only = a.Has("--adapt-stats-only");
  f->shuffle = !a.Has("--no-shuffle") && !f->stats_only;
  if (f->stats_only && !a.Has("--bn-momentum")) t.stats_mode = StatsMode::kCumulativeAverage;
  return ok;
}

// The trainer on s->model in an arena of the size it asks for; false with the runtime's log.
bool CreateTrainer(const TrainFlags& f, Session* s) {
  Options o;
  o.isa = f.isa;
  o.log = Log;
  o.log_user = &s->log;
  const uint8_t* model = s->model.data.get();
  return RequiredTrainingArenaBytes(model, s->model.bytes, f.options, &s->arena_bytes, o) ==
             Status::kOk &&
         (s->arena = AllocateAligned(s->arena_bytes)).data &&
         Trainer::Create(model, s->model.bytes, s->arena.data.get(), s->arena_bytes, f.options, o,
                         &s->trainer) == Status::kOk;
}

// float32 samples of the trainer's size and one label per sample in [0, classes).
bool ReadTrainingData(const ParsedArgs& a, const Trainer& tr, NpyArray* x, std::vector<int32_t>* y,
                      std::string* error) {
  const size_t sample = tr.sample_elems();
  if (!ReadNpy(a.Get("--data", ""), x, error)) return false;
  if (x->dtype != NpyDType::kFloat32 || x->elems() % sample != 0) {
    *error =
        a.Get("--data", "") + ": needs float32 samples of " + std::to_string(sample) + " values";
    return false;
  }
  return ReadLabels(a.Get("--labels", ""), x->elems() / sample, tr.num_classes(), y, error);
}

// One pass over the batches of `order`: training steps, or statistics passes only.
bool RunEpoch(Session& s, const TrainFlags& f, const NpyArray& x, const std::vector<int32_t>& y,
              const std::vector<size_t>& order, int epoch) {
  Trainer& tr = *s.trainer;
  const size_t n = tr.batch_size(), sample = tr.sample_elems(), batches = y.size() / n;
  std::vector<float> xb(n * sample);
  std::vector<int32_t> yb(n);
  double loss_sum = 0;
  size_t correct = 0;
  Progress progress("epoch " + std::to_string(epoch + 1), batches);
  for (size_t b = 0; b < batches; ++b) {
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(xb.data() + i * sample, x.f32.data() + order[b * n + i] * sample,
                  sample * sizeof(float));
      yb[i] = y[order[b * n + i]];
    }
    float loss = 0;
    int hits = 0;
    const Status st = f.stats_only ? tr.AdaptStatistics(xb.data())
                                   : tr.TrainStep(xb.data(), yb.data(), &loss, &hits);
    if (st != Status::kOk) {
      std::fprintf(stderr, "edgefold train: step failed: %s%s\n", StatusName(st), s.log.c_str());
      return false;
    }
    loss_sum += loss;
    correct += size_t(hits);
    progress.Update(
        b + 1, f.stats_only ? "" : "loss " + std::to_string(loss_sum / double(b + 1)).substr(0, 6));
  }
  progress.Finish();
  if (f.stats_only)
    std::printf("epoch %d/%d: BN statistics re-estimated over %zu batches\n", epoch + 1, f.epochs,
                batches);
  else
    std::printf("epoch %d/%d: loss %.4f, train accuracy %.4f (batch statistics)\n", epoch + 1,
                f.epochs, loss_sum / double(batches), double(correct) / double(batches * n));
  return true;
}

// Epochs over the data (shuffled unless --no-shuffle), with eval accuracy before and after.
bool Train(Session& s, const TrainFlags& f, const NpyArray& x, const std::vector<int32_t>& y) {
  const size_t n = s.trainer->batch_size(), samples = y.size(), batches = samples / n;
  std::printf(
      "training arena: %zu bytes, batch %zu, %zu batches per epoch (%zu samples left over)\n",
      s.arena_bytes, n, batches, samples - batches * n);
  std::printf("before: eval accuracy %.4f\n", EvalAccuracy(s, x, y, batches));
  std::vector<size_t> order(samples);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(static_cast<unsigned>(f.seed));
  if (f.stats_only) s.trainer->ResetStatistics();
  for (int e = 0; e < f.epochs; ++e) {
    if (f.shuffle) std::shuffle(order.begin(), order.end(), rng);
    if (!RunEpoch(s, f, x, y, order, e)) return false;
  }
  std::printf("after: eval accuracy %.4f\n", EvalAccuracy(s, x, y, batches));
  return true;
}

}  // namespace

namespace {

// An adaptable int8 model: its folded BatchNorm statistics adapt; labels optional.
int AdaptInt8Model(const ParsedArgs& a, const AlignedBuffer& model) {
  Isa isa = Isa::kAuto;
  if (a.Get("--output", "").empty() || a.Get("--data", "").empty() ||
      !ParseIsa(a.Get("--isa", "auto").c_str(), &isa)) {
    std::fprintf(stderr, "edgefold train: missing or invalid option\n\n%s", kUsage);
    return kExitUsage;
  }
  return AdaptInt8(a, model, isa);
}

// The trained model, exported by the trainer, written to `output`.
int WriteTrainedModel(Session& s, const std::string& output) {
  std::vector<uint8_t> adapted;
  std::string write_error;
  if (!ExportModel(s, &adapted)) write_error = "cannot export the trained model" + s.log;
  if (!write_error.empty() || !compiler::WriteFileAtomic(output, adapted, &write_error)) {
    std::fprintf(stderr, "edgefold train: %s\n", write_error.c_str());
    return kExitFailure;
  }
  std::printf("wrote %s\n", output.c_str());
  return kExitOk;
}

}  // namespace

int TrainCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--output", "--data",      "--labels",       "--epochs",
                      "--lr",     "--momentum",  "--weight-decay", "--bn-momentum",
                      "--batch",  "--trainable", "--seed",         "--isa"};
  spec.bool_flags = {"--no-shuffle", "--adapt-stats-only"};
  spec.aliases = {{"-o", "--output"}};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs a;
  int code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &a, &code)) return code;
  std::string error;
  AlignedBuffer model;
  const bool model_read = ReadFileAligned(a.positional[0], &model, &error);
  if (model_read && IsAdaptableInt8(model)) return AdaptInt8Model(a, model);
  const std::string read_error = error;
  error.clear();
  TrainFlags f;
  if (!ParseTrainFlags(a, &f, &error)) {
    std::fprintf(stderr, "edgefold train: %s\n\n%s",
                 error.empty() ? "missing or invalid option" : error.c_str(), kUsage);
    return kExitUsage;
  }
  Session s;
  s.model = std::move(model);
  if (!model_read || !CreateTrainer(f, &s)) {
    std::fprintf(stderr, "edgefold train: %s: cannot train this model%s%s\n",
                 a.positional[0].c_str(), read_error.c_str(), s.log.c_str());
    return kExitFailure;
  }
  const size_t n = s.trainer->batch_size();
  if (f.batch_check != 0 && size_t(f.batch_check) != n) {
    std::fprintf(stderr,
                 "edgefold train: the model was compiled for batch %zu; recompile with 'edgefold "
                 "compile --train --batch %d'\n",
                 n, f.batch_check);
    return kExitFailure;
  }
  NpyArray x;
  std::vector<int32_t> y;
  if (!ReadTrainingData(a, *s.trainer, &x, &y, &error)) {
    std::fprintf(stderr, "edgefold train: %s\n", error.c_str());
    return kExitFailure;
  }
  if (y.size() / n == 0) {
    std::fprintf(stderr, "edgefold train: %zu samples do not fill one batch of %zu\n", y.size(), n);
    return kExitFailure;
  }
  if (!Train(s, f, x, y)) return kExitFailure;
  return WriteTrainedModel(s, a.Get("--output", ""));
}

}  // namespace edgefold::tools
