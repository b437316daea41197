// edgefold compile MODEL.onnx -o MODEL.efb [--no-fold] [--no-verify] [--input-shape N=d,d,..]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "edgefold_compiler/compiler.h"
#include "npy.h"
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
    "  --no-winograd                keep plain weights for 3x3 stride-1 convs (no Winograd)\n"
    "  --winograd-tile 2|4          Winograd F(2x2,3x3) or F(4x4,3x3) for every conv that takes\n"
    "                               Winograd filters (default: F(4x4) on planes of 14x14 or more)\n"
    "  --expansion-band-kb N        fuse a 1x1 expansion into the depthwise conv after it when "
    "its\n"
    "                               output is 2N KiB or more, computing it in bands of N KiB of\n"
    "                               scratch (default 512; 0: never)\n"
    "  --no-views                   give every Reshape/Slice/Concat its own copy (views need a\n"
    "                               runtime from 2026-11-27 on; older ones refuse them)\n"
    "  --input-shape NAME=D,D,...   fix the shape of a dynamic input (repeatable)\n"
    "  --input-mean M,M,... --input-std S,S,...  take raw input: fold (x-M)/S per channel\n"
    "  --input-stats-from X.npy   the same with M, S computed from data [N, C, ...]: per channel,\n"
    "                             pooled over every image and pixel\n"
    "                               into the first layer (exact; kept as an affine op\n"
    "                               before a padded conv)\n"
    "  --train                      keep BatchNorm for on-device training ('edgefold train')\n"
    "  --batch N                    training batch size (with --train; default 1)\n"
    "  --infer-batch B              batch of the model's graph (inference, the adapted model;\n"
    "                               default 1); training runs it at --batch, a multiple of B\n"
    "  --bn-stats batch|frozen      BatchNorm statistics while training: the batch's (default,\n"
    "                               PyTorch train()) or the running ones, fixed (eval form; the\n"
    "                               training arena then does not grow with --batch)\n"
    "  --trainable bn|bn+head|all   what training will update (sizes the training arena)\n"
    "  --train-from NODE            sparse update: train only from this ONNX node (or tensor) on;\n"
    "                               the backward stops there\n"
    "  --saved-precision fp32|fp16|bf16  BatchNorm's x̂ kept for the backward in 16 bits: half\n"
    "                               its memory, float32 arithmetic (default fp32)\n"
    "  --new-classes K              append K outputs to the classifier, initialized and learned\n"
    "                               on the device (needs --trainable bn+head or all)\n"
    "  --trainable-last K           sparse update: only the last K BatchNorm layers and the\n"
    "                               trainable set after the first of them\n"
    "  --recompute                  the backward re-runs its forward in segments from "
    "checkpoints:\n"
    "                               less training arena, more time, bit-identical updates\n"
    "  --refold-weights             Trainer::Refold writes folded weight copies into the arena\n"
    "                               (default: weights stay in flash, BN runs as a per-channel "
    "affine)\n"
    "  --quantize int8              post-training int8 after folding (docs/quantization.md):\n"
    "                               per-channel weights, activation ranges from --calibrate;\n"
    "                               ops without an int8 kernel stay float; input/output float\n"
    "  --io float|int8              with --quantize int8: int8 takes int8 inputs and gives int8\n"
    "                               outputs (scale and zero point in the report and the model;\n"
    "                               no Quantize/Dequantize at the edges); default float\n"
    "  --quantize-percentile P      clip activations to their [100-P, P] percentiles (default "
    "100:\n"
    "                               min/max)\n"
    "  --adaptable                  with --quantize int8: keep each folded BatchNorm's gamma, "
    "beta\n"
    "                               and epsilon on its int8 op, so its statistics can adapt on "
    "the\n"
    "                               device (edgefold train --adapt-stats-only, StatsAdapter)\n"
    "  --quantize-clip minmax|mse   mse: each activation's range with the least squared int8\n"
    "                               error (clipping + rounding) on the calibration data;\n"
    "                               default minmax (or the percentiles of --quantize-percentile)\n"
    "  --calibrate X.npy            with --quantize: calibration inputs [N, input dims after the\n"
    "                               batch]; without --quantize: recompute BN statistics from "
    "data,\n"
    "                               then fold\n"
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

void PrintQuantReport(const compiler::QuantReport& q, uint64_t arena_bytes, uint64_t weight_bytes) {
  if (q.runs == 0)  // a QDQ model: its own scales, nothing calibrated
    std::printf(
        "int8 (QDQ model, %s): %zu int8 layers, %zu float ops, %d quantize/dequantize ops\n",
        q.clipping.c_str(), q.layers.size(), q.float_ops.size(), q.boundaries);
  else
    std::printf(
        "int8: %zu calibration runs (clipping: %s), %zu int8 layers, %zu float ops, %d "
        "quantize/dequantize ops\n",
        q.runs, q.clipping.c_str(), q.layers.size(), q.float_ops.size(), q.boundaries);
  for (const std::string& f : q.float_ops) std::printf("  stays float: %s\n", f.c_str());
  std::printf("  %-28s %-20s %10s %10s %5s %10s %10s %21s %21s %9s\n", "layer", "type", "in scale",
              "out scale", "zp", "w scale lo", "w scale hi", "observed range", "int8 range (clip)",
              "SQNR dB");
  for (const compiler::QuantLayerReport& l :
       q.layers)  // pools and reshapes have no weights: w scales 0
    std::printf(
        "  %-28.28s %-20.20s %10.4g %10.4g %5d %10.3g %10.3g [%9.4g,%9.4g] [%9.4g,%9.4g] %9.2f\n",
        l.name.c_str(), l.type.c_str(), l.in_scale, l.out_scale, l.out_zero_point, l.w_scale_min,
        l.w_scale_max, l.range_min, l.range_max, l.clip_lo, l.clip_hi, l.sqnr_db);
  if (q.runs > 0)  // a QDQ model has no calibration runs to measure on
    std::printf("int8 output: SQNR %.2f dB, top-1 agreement with float %.2f %%\n", q.output_sqnr_db,
                100.0 * q.top1_agreement);
  std::printf("int8 I/O: %s\n", q.io_int8
                                    ? "int8 (--io int8)"
                                    : "float (Quantize at the inputs, Dequantize at the outputs)");
  for (const compiler::QuantIoReport& io : q.io) {
    if (io.int8)
      std::printf("  %s '%s': int8, scale %.9g, zero point %d (real = (q - zero point) * scale)\n",
                  io.is_input ? "input" : "output", io.name.c_str(), double(io.scale),
                  io.zero_point);
    else
      std::printf("  %s '%s': float32%s%s\n", io.is_input ? "input" : "output", io.name.c_str(),
                  io.why_float.empty() ? "" : ", stays float: ", io.why_float.c_str());
  }
  if (q.adaptable_layers > 0)
    std::printf(
        "int8 adaptable: %d layers keep their folded BatchNorm (edgefold train --adapt-stats-only "
        "adapts them)\n",
        q.adaptable_layers);
  std::printf("int8 arena: %llu bytes (float %llu), weights %llu bytes (float %llu)\n",
              static_cast<unsigned long long>(arena_bytes),
              static_cast<unsigned long long>(q.float_arena_bytes),
              static_cast<unsigned long long>(weight_bytes),
              static_cast<unsigned long long>(q.float_weight_bytes));
}

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

void PrintReport(const compiler::CompileReport& r, size_t efb_bytes) {
  std::printf("BatchNorm: %d found, %d folded backward, %d folded forward, %d kept\n",
              r.batchnorm_found, r.batchnorm_folded_backward, r.batchnorm_folded_forward,
              r.batchnorm_kept_affine);
  if (r.input_normalization_folded)
    std::printf("input normalization: folded into the first layer\n");
  std::printf(
      "activations fused: %d, nodes removed: %d, winograd convs: %d (F(4x4,3x3): %d), expansions "
      "fused: %d\n",
      r.activations_fused, r.nodes_removed, r.winograd_convs, r.winograd43_convs,
      r.expansions_fused);
  if (r.verified) {
    std::printf("verify: max abs error %.3g, max rel error %.3g\n", r.verify_max_abs_error,
                r.verify_max_rel_error);
  } else {
    std::printf("verify: skipped\n");
  }
  std::printf("ops: %d, tensors: %d (%d views: planned inside another tensor, not copied)\n",
              r.num_ops, r.num_tensors, r.tensor_views);
  const double ratio = r.arena_lower_bound ? double(r.arena_bytes) / r.arena_lower_bound : 0.0;
  std::printf("arena: %llu bytes (lower bound %llu, ratio %.3f)\n",
              static_cast<unsigned long long>(r.arena_bytes),
              static_cast<unsigned long long>(r.arena_lower_bound), ratio);
  std::printf("weights: %llu bytes, .efb file: %zu bytes\n",
              static_cast<unsigned long long>(r.weight_bytes), efb_bytes);
  if (r.quant.ran) PrintQuantReport(r.quant, r.arena_bytes, r.weight_bytes);
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
  bool ok =
      ParseCount("--batch", args.Get("--batch", "1"), &training.batch, &error) &&
      ParseCount("--calibrate-batch", args.Get("--calibrate-batch", "32"), &t->calibrate_batch,
                 &error) &&
      ParseCount("--trainable-last", args.Get("--trainable-last", "0"), &training.trainable_last,
                 &error) &&
      ParseCount("--new-classes", args.Get("--new-classes", "0"), &training.new_classes, &error) &&
      ParseCount("--infer-batch", args.Get("--infer-batch", "1"), &training.inference_batch,
                 &error);
  if (ok && (training.batch < 1 || t->calibrate_batch < 1 || training.inference_batch < 1)) {
    error = "--batch, --infer-batch and --calibrate-batch must be at least 1";
    ok = false;
  }
  const std::string saved = args.Get("--saved-precision", "fp32");
  using Saved = compiler::TrainingOptions::Saved;
  training.saved_precision = saved == "fp16"   ? Saved::kFloat16
                             : saved == "bf16" ? Saved::kBFloat16
                                               : Saved::kFloat32;
  if (ok && saved != "fp32" && saved != "fp16" && saved != "bf16") {
    error = "--saved-precision must be fp32, fp16 or bf16";
    ok = false;
  }
  const std::string stats = args.Get("--bn-stats", "batch");
  training.frozen_statistics = stats == "frozen";
  if (ok && stats != "batch" && stats != "frozen") {
    error = "--bn-stats must be batch or frozen";
    ok = false;
  }
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

}  // namespace

int CompileCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--output",
                      "--input-shape",
                      "--batch",
                      "--infer-batch",
                      "--bn-stats",
                      "--new-classes",
                      "--saved-precision",
                      "--trainable",
                      "--train-from",
                      "--trainable-last",
                      "--calibrate",
                      "--calibrate-batch",
                      "--calibrate-momentum",
                      "--input-mean",
                      "--input-std",
                      "--input-stats-from",
                      "--quantize",
                      "--quantize-percentile",
                      "--quantize-clip",
                      "--io",
                      "--winograd-tile",
                      "--expansion-band-kb"};
  spec.bool_flags = {"--no-fold", "--no-verify",      "--no-winograd", "--no-views",
                     "--train",   "--refold-weights", "--recompute",   "--adaptable"};
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
  options.share_views = !args.Has("--no-views");
  if (args.Has("--winograd-tile")) {
    const std::string tile = args.Get("--winograd-tile", "");
    if (tile != "2" && tile != "4") {
      std::fprintf(stderr, "edgefold compile: --winograd-tile takes 2 or 4, not '%s'\n",
                   tile.c_str());
      return kExitUsage;
    }
    options.winograd_tile = tile == "4" ? 4 : 2;
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
    options.expansion_band_kb = static_cast<int>(v);
  }
  for (const std::string& text : args.All("--input-shape")) {
    std::string name, error;
    std::vector<int64_t> dims;
    if (!ParseInputShape(text, &name, &dims, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitUsage;
    }
    options.input_shapes[name] = dims;
  }
  for (const auto& [flag, values] :
       {std::make_pair(std::string("--input-mean"), &options.input_mean),
        std::make_pair(std::string("--input-std"), &options.input_std)}) {
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
    if (!InputStatsFromNpy(args.Get("--input-stats-from", ""), &options, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitFailure;
    }
    std::printf("input statistics from %s (%zu channels): mean %s, std %s\n",
                args.Get("--input-stats-from", "").c_str(), options.input_mean.size(),
                FloatList(options.input_mean).c_str(), FloatList(options.input_std).c_str());
  }
  const std::string& input = args.positional[0];
  compiler::CompileResult result;
  {
    std::string error;
    if (!ParseQuantizeFlags(args, &options, &error)) {
      std::fprintf(stderr, "edgefold compile: %s\n", error.c_str());
      return kExitUsage;
    }
  }
  TrainingCompileFlags train;
  if (!ParseTrainingFlags(args, &train)) return kExitUsage;
  if (options.quantize_int8) train.calibrate_npy.clear();  // --calibrate fed the quantizer
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
