// Runs one ONNX backend test case (model.onnx + test_data_set_*/{input,output}_k.pb) through
// the edgefold compiler and runtime and compares with the expected outputs.
//
// Input binding: the k-th input file belongs to the k-th graph input that is not an
// initializer. Input 0 always stays a runtime input. A later input whose name feeds a weight
// slot (Conv W/B, Gemm B/C, BatchNormalization scale/B/mean/var, PRelu slope, Pad pads/value,
// Clip min/max, Reshape shape) becomes an initializer with the file's contents, as a trained
// model would carry it; every other input stays a runtime input.
//
// Tolerance: |got − want| ≤ atol·max(1, max|want|) + rtol·|want| element-wise; an expected NaN
// must come out NaN (sqrt/log of x < 0), any other NaN fails.
#pragma once
#include <string>

#include "edgefold/isa.h"
#include "edgefold_compiler/compiler.h"

namespace edgefold::conformance {

enum class Verdict { kPass, kFail, kSkip };

struct RunOptions {
  compiler::CompileOptions compile;  // input_shapes and model_name are filled per case
  Isa isa = Isa::kAuto;
  double rtol = 1e-4;
  double atol = 1e-5;
};

struct CaseOutcome {
  Verdict verdict = Verdict::kFail;
  std::string stage;    // where it stopped: load, bind, compile, create, invoke, compare
  std::string message;  // why (empty on pass)
  int data_sets = 0;    // test_data_set_* directories run
  double max_abs_error = 0;
  compiler::CompileReport report;  // of the last compile
};

CaseOutcome RunCase(const std::string& case_dir, const std::string& case_id,
                    const RunOptions& options);

const char* VerdictName(Verdict v);

}  // namespace edgefold::conformance
