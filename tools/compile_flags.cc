// The flags of `edgefold compile` into compiler::CompileOptions and TrainingCompileFlags.
#include "compile_flags.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "npy.h"

namespace edgefold::tools {
namespace {

// "input=1,3,32,32" → name and dims. False with `error` on anything malformed.
bool ParseInputShape(const std::string& text, std::string* name, std::vector<int64_t>* dims,
                     std::string* error) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    *error = "--input-shape expects NAME=D,D,..., got '" + text + "'";
    return false;
  }
  *name = text.substr(0, eq);
  dims->clear();
  size_t pos = eq + 1;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string part = text.substr(pos, comma - pos);
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v <= 0 || v > (1LL << 31)) {
      *error = "--input-shape " + *name + ": dimension '" + part + "' is not a positive integer";
      return false;
    }
    dims->push_back(v);
    pos = comma + 1;
  }
  return true;
}

// "0.49,0.48,0.45" → floats. False with `error` naming the flag on anything malformed.
bool ParseFloatList(const std::string& flag, const std::string& text, std::vector<float>* out,
                    std::string* error) {
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string part = text.substr(pos, comma - pos);
    char* end = nullptr;
    const float v = std::strtof(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size()) {
      *error = flag + ": '" + part + "' is not a number";
      return false;
    }
    out->push_back(v);
    pos = comma + 1;
  }
  return true;
}

// --quantize-percentile P | --quantize-clip minmax|mse, --quantize-weight-bits 7|8 into `options`.
bool ParseClipFlags(const ParsedArgs& args, compiler::CompileOptions* options, std::string* error) {
  if (args.Has("--quantize-percentile")) {
    char* end = nullptr;
    const std::string text = args.Get("--quantize-percentile", "");
    options->quantize_percentile = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' ||
        !(options->quantize_percentile > 50.0 && options->quantize_percentile <= 100.0)) {
      *error = "--quantize-percentile must be a number in (50, 100]";
      return false;
    }
  }
  if (args.Has("--quantize-clip")) {
    const std::string clip = args.Get("--quantize-clip", "");
    if (clip != "minmax" && clip != "mse") {
      *error = "--quantize-clip must be minmax or mse, got '" + clip + "'";
      return false;
    }
    if (clip == "mse" && args.Has("--quantize-percentile")) {
      *error =
          "--quantize-clip mse and --quantize-percentile do not combine (each chooses the "
          "clipping)";
      return false;
    }
    options->quantize_mse = clip == "mse";
  }
  if (args.Has("--quantize-weight-bits")) {
    const std::string bits = args.Get("--quantize-weight-bits", "");
    if (bits != "7" && bits != "8") {
      *error = "--quantize-weight-bits must be 7 or 8, got '" + bits + "'";
      return false;
    }
    options->quantize_weight_bits = bits == "7" ? 7 : 8;
  }
  return true;
}

// --batch, --calibrate-batch, --trainable-last, --new-classes, --infer-batch.
bool ParseTrainingCounts(const ParsedArgs& args, TrainingCompileFlags* t, std::string* error) {
  compiler::TrainingOptions& training = t->training;
  bool ok =
      ParseCount("--batch", args.Get("--batch", "1"), &training.batch, error) &&
      ParseCount("--calibrate-batch", args.Get("--calibrate-batch", "32"), &t->calibrate_batch,
                 error) &&
      ParseCount("--trainable-last", args.Get("--trainable-last", "0"), &training.trainable_last,
                 error) &&
      ParseCount("--new-classes", args.Get("--new-classes", "0"), &training.new_classes, error) &&
      ParseCount("--infer-batch", args.Get("--infer-batch", "1"), &training.inference_batch, error);
  if (ok && (training.batch < 1 || t->calibrate_batch < 1 || training.inference_batch < 1)) {
    *error = "--batch, --infer-batch and --calibrate-batch must be at least 1";
    ok = false;
  }
  return ok;
}

// --saved-precision, --bn-stats.
bool ParseTrainingChoices(const ParsedArgs& args, TrainingCompileFlags* t, std::string* error) {
  compiler::TrainingOptions& training = t->training;
  const std::string saved = args.Get("--saved-precision", "fp32");
  using Saved = compiler::TrainingOptions::Saved;
  training.saved_precision = saved == "fp16"   ? Saved::kFloat16
                             : saved == "bf16" ? Saved::kBFloat16
                                               : Saved::kFloat32;
  if (saved != "fp32" && saved != "fp16" && saved != "bf16") {
    *error = "--saved-precision must be fp32, fp16 or bf16";
    return false;
  }
  const std::string stats = args.Get("--bn-stats", "batch");
  training.frozen_statistics = stats == "frozen";
  if (stats != "batch" && stats != "frozen") {
    *error = "--bn-stats must be batch or frozen";
    return false;
  }
  return true;
}

// --input-stats-from X.npy: float32 [N, C, ...] → per-channel mean and std (compiler.h).
bool InputStatsFromNpy(const std::string& path, compiler::CompileOptions* options,
                       std::string* error) {
  NpyArray x;
  if (!ReadNpy(path, &x, error)) return false;
  if (x.dtype != NpyDType::kFloat32 || x.shape.size() < 2) {
    *error = path + ": --input-stats-from needs float32 data of shape [N, C, ...]";
    return false;
  }
  const size_t samples = static_cast<size_t>(x.shape[0]),
               channels = static_cast<size_t>(x.shape[1]);
  const size_t spatial = (samples * channels == 0) ? 0 : x.elems() / (samples * channels);
  if (!compiler::InputStatistics(x.f32.data(), samples, channels, spatial, &options->input_mean,
                                 &options->input_std, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

std::string FloatList(const std::vector<float>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 8; ++i)
    s += (i ? "," : "") + std::to_string(v[i]).substr(0, 8);
  return v.size() > 8 ? s + ",..." : s;
}

// --input-shape, --input-mean/--input-std, --input-stats-from.
int ParseInputFlags(const ParsedArgs& args, compiler::CompileOptions* options) {
  for (const std::string& text : args.All("--input-shape")) {
    std::string name, error;
    std::vector<int64_t> dims;
    if (!ParseInputShape(text, &name, &dims, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitUsage;
    }
    options->input_shapes[name] = dims;
  }
  for (const auto& [flag, values] :
       {std::make_pair(std::string("--input-mean"), &options->input_mean),
        std::make_pair(std::string("--input-std"), &options->input_std)}) {
    std::string error;
    if (args.Has(flag) && !ParseFloatList(flag, args.Get(flag, ""), values, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitUsage;
    }
  }
  if (args.Has("--input-stats-from")) {
    if (args.Has("--input-mean") || args.Has("--input-std")) {
      std::fprintf(stderr,
                   "edgefold compile: --input-stats-from replaces --input-mean/--input-std; give "
                   "one or the other\n");
      return kExitUsage;
    }
    std::string error;
    if (!InputStatsFromNpy(args.Get("--input-stats-from", ""), options, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitFailure;
    }
    std::printf("input statistics from %s (%zu channels): mean %s, std %s\n",
                args.Get("--input-stats-from", "").c_str(), options->input_mean.size(),
                FloatList(options->input_mean).c_str(), FloatList(options->input_std).c_str());
  }
  return kExitOk;
}

}  // namespace

// --quantize int8 --calibrate X.npy [--quantize-percentile P | --quantize-clip mse] into `options`.
bool ParseQuantizeFlags(const ParsedArgs& args, compiler::CompileOptions* options,
                        std::string* error) {
  const std::string io = args.Get("--io", "float");
  if (io != "float" && io != "int8") {
    *error = "--io must be float or int8, got '" + io + "'";
    return false;
  }
  if (!args.Has("--quantize")) {
    if (args.Has("--quantize-percentile")) *error = "--quantize-percentile needs --quantize int8";
    if (args.Has("--quantize-clip")) *error = "--quantize-clip needs --quantize int8";
    if (args.Has("--quantize-weight-bits")) *error = "--quantize-weight-bits needs --quantize int8";
    if (args.Has("--adaptable"))
      *error = "--adaptable needs --quantize int8 (a float model adapts with --train)";
    if (io == "int8")
      *error = "--io int8 needs --quantize int8 (a float model takes and gives float)";
    return error->empty();
  }
  options->io_int8 = io == "int8";
  if (args.Get("--quantize", "") != "int8") {
    *error = "--quantize supports int8 only, got '" + args.Get("--quantize", "") + "'";
    return false;
  }
  if (args.Has("--train")) {
    *error = "--quantize int8 and --train do not combine (training runs in float)";
    return false;
  }
  if (!args.Has("--calibrate")) {
    *error = "--quantize int8 needs --calibrate X.npy (calibration inputs)";
    return false;
  }
  options->quantize_int8 = true;
  options->int8_adaptable = args.Has("--adaptable");
  if (!ParseClipFlags(args, options, error)) return false;
  NpyArray x;
  const std::string path = args.Get("--calibrate", "");
  if (!ReadNpy(path, &x, error)) return false;
  if (x.dtype != NpyDType::kFloat32) {
    *error = path + ": calibration data must be float32";
    return false;
  }
  options->calibration = std::move(x.f32);
  options->calibration_shape = x.shape;
  return true;
}

// --train/--batch/--trainable/--calibrate*; prints the problem and returns false on bad values.
bool ParseTrainingFlags(const ParsedArgs& args, TrainingCompileFlags* t) {
  std::string error;
  compiler::TrainingOptions& training = t->training;
  t->train = args.Has("--train");
  training.refold_weights = args.Has("--refold-weights");
  training.recompute = args.Has("--recompute");
  training.train_from = args.Get("--train-from", "");
  t->calibrate_npy = args.Get("--calibrate", "");
  bool ok = ParseTrainingCounts(args, t, &error) && ParseTrainingChoices(args, t, &error);
  if (ok && !compiler::ParseTrainableSet(args.Get("--trainable", "bn"), &training.trainable)) {
    error = "--trainable must be bn, bn+head or all";
    ok = false;
  }
  if (ok && !t->train &&
      (args.Has("--train-from") || args.Has("--trainable-last") || args.Has("--bn-stats") ||
       args.Has("--infer-batch") || args.Has("--new-classes") || args.Has("--saved-precision") ||
       args.Has("--recompute"))) {
    error =
        "--train-from, --trainable-last, --bn-stats, --infer-batch, --new-classes, "
        "--saved-precision and "
        "--recompute shape what --train compiles: add --train";
    ok = false;
  }
  if (ok && args.Has("--calibrate-momentum")) {
    char* end = nullptr;
    const std::string text = args.Get("--calibrate-momentum", "");
    t->calibrate_momentum = std::strtof(text.c_str(), &end);
    if (*end != '\0' || !(t->calibrate_momentum > 0.0f && t->calibrate_momentum <= 1.0f)) {
      error = "--calibrate-momentum must be in (0, 1]";
      ok = false;
    }
  }
  if (!ok) std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
  return ok;
}

// --no-fold, --no-verify, --no-winograd, --no-transposed-weights, --winograd-tile,
// --winograd-min-channels, --expansion-band-kb, --threads, --no-views,
// --input-shape, --input-mean/--input-std, --input-stats-from.
int ParseGraphFlags(const ParsedArgs& args, compiler::CompileOptions* options) {
  options->fold_batchnorm = !args.Has("--no-fold");
  options->verify = !args.Has("--no-verify");
  options->winograd = !args.Has("--no-winograd");
  options->transposed_weights = !args.Has("--no-transposed-weights");
  options->share_views = !args.Has("--no-views");
  if (args.Has("--winograd-tile")) {
    const std::string tile = args.Get("--winograd-tile", "");
    if (tile != "2" && tile != "4") {
      std::fprintf(stderr, "edgefold compile: --winograd-tile takes 2 or 4, not '%s'\n",
                   tile.c_str());
      return kExitUsage;
    }
    options->winograd_tile = tile == "4" ? 4 : 2;
  }
  if (args.Has("--winograd-min-channels")) {
    const std::string c = args.Get("--winograd-min-channels", "");
    char* end = nullptr;
    const long v = std::strtol(c.c_str(), &end, 10);
    if (c.empty() || *end != '\0' || v < 1 || v > 1 << 20) {
      std::fprintf(stderr,
                   "edgefold compile: --winograd-min-channels takes a channel count (1 to "
                   "1048576), not '%s'\n",
                   c.c_str());
      return kExitUsage;
    }
    options->winograd_min_channels = static_cast<int>(v);
  }
  if (args.Has("--expansion-band-kb")) {
    const std::string kb = args.Get("--expansion-band-kb", "");
    char* end = nullptr;
    const long v = std::strtol(kb.c_str(), &end, 10);
    if (kb.empty() || *end != '\0' || v < 0 || v > 1 << 20) {
      std::fprintf(
          stderr,
          "edgefold compile: --expansion-band-kb takes a size in KiB (0 to 1048576), not '%s'\n",
          kb.c_str());
      return kExitUsage;
    }
    options->expansion_band_kb = static_cast<int>(v);
  }
  if (args.Has("--threads")) {
    const std::string t = args.Get("--threads", "");
    char* end = nullptr;
    const long v = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || v < 1 || v > 256) {
      std::fprintf(stderr,
                   "edgefold compile: --threads takes the most threads the plan serves (1 to 256), "
                   "not '%s'\n",
                   t.c_str());
      return kExitUsage;
    }
    options->threads = static_cast<int>(v);
  }
  return ParseInputFlags(args, options);
}

}  // namespace edgefold::tools
