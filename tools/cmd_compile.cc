// edgefold compile MODEL.onnx -o MODEL.efb [--no-fold] [--no-verify] [--input-shape N=d,d,..]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "edgefold_compiler/compiler.h"
#include "progress.h"
#include "train_compile.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold compile MODEL.onnx -o MODEL.efb [options]\n"
    "\n"
    "Checks the ONNX model, infers shapes, folds BatchNorm into neighbouring Conv/Gemm,\n"
    "fuses activations, plans the arena and writes one .efb file.\n"
    "\n"
    "options:\n"
    "  -o, --output PATH            output .efb file (required; written atomically)\n"
    "  --no-fold                    keep BatchNorm as its own op\n"
    "  --no-verify                  skip the folded-vs-unfolded numeric check\n"
    "  --no-winograd                keep plain weights for 3x3 stride-1 convs (no Winograd F(2,3))\n"
    "  --input-shape NAME=D,D,...   fix the shape of a dynamic input (repeatable)\n"
    "  --input-mean M,M,... --input-std S,S,...  take raw input: fold (x-M)/S per channel\n"
    "                               into the first layer (exact; kept as an affine op\n"
    "                               before a padded conv)\n"
    "  --train                      keep BatchNorm for on-device training ('edgefold train')\n"
    "  --batch N                    training batch size (with --train; default 1)\n"
    "  --trainable bn|bn+head|all   what training will update (sizes the training arena)\n"
    "  --calibrate X.npy            recompute BN statistics from data, then fold\n"
    "  --calibrate-batch N          calibration batch size (default 32)\n"
    "  --calibrate-momentum M       moving average instead of Algorithm 2's cumulative mean\n";

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
bool ParseFloatList(const std::string& flag, const std::string& text, std::vector<float>* out, std::string* error) {
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

void PrintReport(const compiler::CompileReport& r, size_t efb_bytes) {
  std::printf("BatchNorm: %d found, %d folded backward, %d folded forward, %d kept\n",
              r.batchnorm_found, r.batchnorm_folded_backward, r.batchnorm_folded_forward,
              r.batchnorm_kept_affine);
  if (r.input_normalization_folded) std::printf("input normalization: folded into the first layer\n");
  std::printf("activations fused: %d, nodes removed: %d, winograd convs: %d\n", r.activations_fused,
              r.nodes_removed, r.winograd_convs);
  if (r.verified) {
    std::printf("verify: max abs error %.3g, max rel error %.3g\n", r.verify_max_abs_error,
                r.verify_max_rel_error);
  } else {
    std::printf("verify: skipped\n");
  }
  std::printf("ops: %d, tensors: %d\n", r.num_ops, r.num_tensors);
  const double ratio = r.arena_lower_bound ? double(r.arena_bytes) / r.arena_lower_bound : 0.0;
  std::printf("arena: %llu bytes (lower bound %llu, ratio %.3f)\n",
              static_cast<unsigned long long>(r.arena_bytes),
              static_cast<unsigned long long>(r.arena_lower_bound), ratio);
  std::printf("weights: %llu bytes, .efb file: %zu bytes\n",
              static_cast<unsigned long long>(r.weight_bytes), efb_bytes);
}

// --train/--batch/--trainable/--calibrate*; prints the problem and returns false on bad values.
bool ParseTrainingFlags(const ParsedArgs& args, TrainingCompileFlags* t) {
  std::string error;
  t->train = args.Has("--train");
  t->calibrate_npy = args.Get("--calibrate", "");
  bool ok = ParseCount("--batch", args.Get("--batch", "1"), &t->batch, &error) &&
            ParseCount("--calibrate-batch", args.Get("--calibrate-batch", "32"), &t->calibrate_batch, &error);
  if (ok && (t->batch < 1 || t->calibrate_batch < 1)) {
    error = "--batch and --calibrate-batch must be at least 1";
    ok = false;
  }
  if (ok && !ParseTrainable(args.Get("--trainable", "bn"), &t->trainable)) {
    error = "--trainable must be bn, bn+head or all";
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

}  // namespace

int CompileCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--output", "--input-shape", "--batch", "--trainable", "--calibrate",
                      "--calibrate-batch", "--calibrate-momentum", "--input-mean", "--input-std"};
  spec.bool_flags = {"--no-fold", "--no-verify", "--no-winograd", "--train"};
  spec.aliases = {{"-o", "--output"}};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  const std::string output = args.Get("--output", "");
  if (output.empty()) {
    std::fprintf(stderr, "edgefold compile: missing -o OUTPUT.efb\n\n%s", kUsage);
    return kExitUsage;
  }
  compiler::CompileOptions options;
  options.fold_batchnorm = !args.Has("--no-fold");
  options.verify = !args.Has("--no-verify");
  options.winograd = !args.Has("--no-winograd");
  for (const std::string& text : args.All("--input-shape")) {
    std::string name, error;
    std::vector<int64_t> dims;
    if (!ParseInputShape(text, &name, &dims, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitUsage;
    }
    options.input_shapes[name] = dims;
  }
  for (const auto& [flag, values] : {std::make_pair(std::string("--input-mean"), &options.input_mean),
                                     std::make_pair(std::string("--input-std"), &options.input_std)}) {
    std::string error;
    if (args.Has(flag) && !ParseFloatList(flag, args.Get(flag, ""), values, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitUsage;
    }
  }
  const std::string& input = args.positional[0];
  compiler::CompileResult result;
  TrainingCompileFlags train;
  if (!ParseTrainingFlags(args, &train)) return kExitUsage;
  RunWithSpinner("compiling " + input, [&] {
    result = train.any() ? CompileWithTrainingFlags(input, options, train)
                         : compiler::CompileFile(input, options);
  });
  if (!result.ok) {
    std::fprintf(stderr, "edgefold compile: %s\n", result.error.c_str());
    return kExitFailure;
  }
  std::string error;
  if (!compiler::WriteFileAtomic(output, result.model, &error)) {
    std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf("compiled %s -> %s\n", input.c_str(), output.c_str());
  PrintReport(result.report, result.model.size());
  return kExitOk;
}

}  // namespace edgefold::tools
