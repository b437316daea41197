// What `edgefold validate` reports: per output the target's largest absolute error and top-1
// agreement against the host run (and against expected outputs), per layer the error of the
// target's op outputs against the host's, and the verdict against the limits.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "layer_taps.h"

namespace edgefold::tools {

struct ValidateLimits {
  double min_top1 = 0.99;  // least top-1 agreement, against the host and the expected outputs
  double max_abs = 0;      // largest absolute error allowed (infinity: no limit)
  double tolerance = -1;   // >= 0: count the values within it; at least min_within of them
  double min_within = 0.99;
};

// One validation's raw results; outputs run after run, graph outputs in order, dequantized.
struct ValidateRun {
  std::string target, kernels, summary;  // summary: the target program's "ok" line, if any
  size_t runs = 0;
  long model_bytes = -1, arena_bytes = -1;  // in-process runs; a target's come in `summary`
  std::vector<float> host_outputs, target_outputs;
  std::vector<LayerValue> host_layers;  // every run's op outputs, run after run
};

struct OutputReport {
  std::string name;
  size_t rows = 0;  // argmax rows compared (runs × elems / last dim)
  double max_abs_host = 0, top1_host = 1, within_host = 1;  // within: share within tolerance
  bool has_expected = false;
  double max_abs_expected = 0, top1_expected = 1, within_expected = 1;
};

struct LayerReport {
  std::string op_name, op_type, tensor;
  bool int8 = false;
  double max_abs = 0, max_ref = 0, signal = 0, noise = 0;
  double SqnrDb() const;  // 10·log10(Σ ref² / Σ (ref − target)²); +inf when equal
};

struct ValidateReport {
  std::string target, kernels;
  size_t runs = 0;
  long model_bytes = -1, arena_bytes = -1, stack_bytes = -1;  // -1: not reported
  std::vector<OutputReport> outputs;
  std::vector<LayerReport> layers;  // empty without --per-layer
  bool pass = true;
};

// `expected`: empty or laid out as the outputs; `target_layers`: nullptr without --per-layer.
bool BuildReport(Interpreter& host, const ValidateRun& run, const std::vector<float>& expected,
                 const std::vector<LayerValue>* target_layers, const ValidateLimits& limits,
                 ValidateReport* report, std::string* error);
void PrintReport(const ValidateReport& report, const ValidateLimits& limits);
// [{"layer", "type", "tensor", "int8", "max_abs", "max_rel", "sqnr_db"}, …]; an infinite SQNR
// is written 1e999 (Python's json reads it as inf).
std::string LayersJson(const std::vector<LayerReport>& layers);
bool WriteReportJson(const std::string& path, const ValidateReport& report, std::string* error);
// {"error": message}, best effort (for callers that read the JSON, as Python's Model.validate).
void WriteErrorJson(const std::string& path, const std::string& message);

}  // namespace edgefold::tools
