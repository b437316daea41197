// `edgefold compile`'s flags into the compiler's options (compile_flags.cc) and its report
// (compile_print.cc); cmd_compile.cc runs them in order.
#pragma once
#include <cstddef>
#include <string>

#include "cli_args.h"
#include "edgefold_compiler/compiler.h"
#include "train_compile.h"

namespace edgefold::tools {

// --no-fold, --no-verify, --no-winograd, --winograd-tile, --expansion-band-kb, --no-views and
// the input flags into `options`: kExitOk, or the exit code after printing the problem.
int ParseGraphFlags(const ParsedArgs& args, compiler::CompileOptions* options);

// --quantize int8 --calibrate X.npy [--quantize-percentile P | --quantize-clip mse], --io,
// --adaptable into `options`. False with `error` on a bad or conflicting flag.
bool ParseQuantizeFlags(const ParsedArgs& args, compiler::CompileOptions* options,
                        std::string* error);

// --train/--batch/--trainable/--calibrate*; prints the problem and returns false on bad values.
bool ParseTrainingFlags(const ParsedArgs& args, TrainingCompileFlags* t);

// The compile report: passes, plan, sizes and, for int8, the quantization.
void PrintReport(const compiler::CompileReport& r, size_t efb_bytes);

}  // namespace edgefold::tools
