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
#include "compile_flags.h"
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
    "  --no-transposed-weights      keep [Cout, Cin, kh, kw] weights for 1x1 convs under 49\n"
    "                               pixels and small stride-2 convs (default: stored\n"
    "                               transposed, output channels in the vector lanes)\n"
    "  --winograd-tile 2|4          Winograd F(2x2,3x3) or F(4x4,3x3) for every conv that takes\n"
    "                               Winograd filters (default: F(4x4) on planes of 14x14 or more)\n"
    "  --winograd-min-channels N    Winograd only for convs with N or more input and output\n"
    "                               channels (default 16; 64 plans a smaller arena, and is\n"
    "                               faster on a Cortex-M55)\n"
    "  --expansion-band-kb N        fuse a 1x1 expansion into the depthwise conv after it when "
    "its\n"
    "                               output is 2N KiB or more, computing it in bands of N KiB of\n"
    "                               scratch (default 512; 0: never)\n"
    "  --threads N                  plan per-thread scratch for grouped convs (ResNeXt, RegNet)\n"
    "                               so that up to N threads split them by group, and for\n"
    "                               Winograd convs, one place per thread's tile rows (default 1;\n"
    "                               docs/threads.md)\n"
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
    "  --quantize-weight-bits 7|8   7: Conv/Gemm weights in [-64, 64] per channel, so AVX2 and\n"
    "                               SSE4.1 cores without VNNI run the convolutions as u8*s8\n"
    "                               pairs (faster, less accurate: see the report's SQNR)\n"
    "  --calibrate X.npy            with --quantize: calibration inputs [N, input dims after the\n"
    "                               batch]; without --quantize: recompute BN statistics from "
    "data,\n"
    "                               then fold\n"
    "  --calibrate-batch N          calibration batch size (default 32)\n"
    "  --calibrate-momentum M       moving average instead of Algorithm 2's cumulative mean\n";

ArgSpec CompileArgSpec() {
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
                      "--quantize-weight-bits",
                      "--io",
                      "--winograd-tile",
                      "--winograd-min-channels",
                      "--expansion-band-kb",
                      "--threads"};
  spec.bool_flags = {"--no-fold",   "--no-verify", "--no-winograd",
                     "--no-views",  "--train",     "--refold-weights",
                     "--recompute", "--adaptable", "--no-transposed-weights"};
  spec.aliases = {{"-o", "--output"}};
  spec.min_positional = spec.max_positional = 1;
  return spec;
}

}  // namespace

int CompileCommand(int argc, char** argv) {
  const ArgSpec spec = CompileArgSpec();
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  const std::string output = args.Get("--output", "");
  if (output.empty()) {
    std::fprintf(stderr, "edgefold compile: missing -o OUTPUT.efb\n\n%s", kUsage);
    return kExitUsage;
  }
  compiler::CompileOptions options;
  const int parsed = ParseGraphFlags(args, &options);
  if (parsed != kExitOk) return parsed;
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
