// edgefold validate MODEL.efb --inputs X.npy [--expected Y.npy] [--target T] [--per-layer]:
// runs a .efb on a target (in-process, or the generic validation program under QEMU) and
// compares its outputs with the host runtime's, and with expected outputs when given.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "layer_taps.h"
#include "npy.h"
#include "target_run.h"
#include "target_taps.h"
#include "validate_report.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold validate MODEL.efb --inputs X.npy [--inputs X2.npy ...]\n"
    "                         [--expected Y.npy ...] [--target host|aarch64|armv7|m4|m7|m55]\n"
    "                         [--target-build DIR] [--per-layer] [--min-top1 F] [--max-abs E]\n"
    "                         [--tolerance T [--min-within F]] [--json FILE]\n"
    "\n"
    "Runs MODEL.efb on the target and on the host runtime on the same inputs and reports per\n"
    "output the largest absolute error and the top-1 agreement (argmax over the last dim) of\n"
    "the target against the host, and against --expected (one float32 .npy per output, all runs\n"
    "stacked) when given. host runs in-process; aarch64 and armv7 run the generic validation\n"
    "program (examples/validate) under qemu-aarch64 / qemu-arm with the sysroot; m4, m7 and m55\n"
    "run its firmware under qemu-system-arm (mps2-an386 / mps2-an500 / mps3-an547), reading the\n"
    ".efb and the inputs over semihosting: the bytes that run are the bytes of MODEL.efb. The\n"
    "programs come from the target's cross build: --target-build DIR (default: build-<target>\n"
    "next to the build of this edgefold binary), DIR/bin/edgefold_validate[.elf].\n"
    "--per-layer: every op output of the target against the host's, as in `edgefold diff`.\n"
    "Inputs: one float32 .npy per model input, the leading dim a multiple of the model's batch\n"
    "(one run per slice). Fails (exit 1) when a top-1 agreement is below --min-top1 (default\n"
    "0.99), an error above --max-abs (default: no limit), or, with --tolerance T, fewer than\n"
    "--min-within F (default 0.99) of the values lie within T (an int8 output: T = its\n"
    "quantization step accepts a requantization rounded the other way). --json FILE: the report\n"
    "as JSON (on an error: {\"error\": message}); --quiet: no table.\n";

// Every input's slice `run`, inputs in graph order: the layout the target program reads.
bool LoadInputs(const std::vector<std::string>& paths, Interpreter& interp,
                std::vector<float>* flat, size_t* runs, std::string* error) {
  if (paths.size() != interp.num_inputs())
    return *error = "the model has " + std::to_string(interp.num_inputs()) + " input(s), got " +
                    std::to_string(paths.size()) + " --inputs file(s)",
           false;
  std::vector<NpyArray> arrays(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    NpyArray& a = arrays[i];
    if (!ReadNpy(paths[i], &a, error)) return false;
    const TensorView v = interp.input(i);
    std::vector<int64_t> want(v.shape, v.shape + v.rank);
    // [k·batch, rest...] (runs stacked along the leading dim) or [k, shape...] (a stack of
    // model-shaped inputs).
    const bool stacked = a.shape.size() == want.size() + 1 &&
                         std::equal(want.begin(), want.end(), a.shape.begin() + 1);
    bool tail_equal = a.shape.size() == want.size() && !want.empty() && want[0] > 0;
    for (size_t d = 1; tail_equal && d < want.size(); ++d) tail_equal = a.shape[d] == want[d];
    if (a.dtype != NpyDType::kFloat32 || !(stacked || tail_equal) || a.shape[0] == 0 ||
        (tail_equal && a.shape[0] % want[0] != 0))
      return *error = "input " + std::to_string(i) + " '" + v.name + "': " + paths[i] + " holds " +
                      (a.dtype == NpyDType::kFloat32 ? "float32 " : "non-float32 ") +
                      ShapeToString(a.shape) + ", the model wants float32 " + ShapeToString(want) +
                      " (or a multiple of its leading dim, or a stack of it)",
             false;
    const size_t k = static_cast<size_t>(stacked ? a.shape[0] : a.shape[0] / want[0]);
    if (i > 0 && k != *runs)
      return *error = "input " + std::to_string(i) + " '" + v.name + "': " + paths[i] + " holds " +
                      std::to_string(k) + " runs, input 0 " + std::to_string(*runs),
             false;
    *runs = k;
  }
  for (size_t r = 0; r < *runs; ++r)
    for (size_t i = 0; i < arrays.size(); ++i) {
      const size_t elems = interp.input(i).elems;
      const float* x = arrays[i].f32.data() + r * elems;
      flat->insert(flat->end(), x, x + elems);
    }
  return true;
}

// Runs `taps` on every run of `inputs`: outputs run after run, and with keep_layers every op
// output of every run.
bool RunInProcess(LayerTaps& taps, const std::vector<float>& inputs, size_t runs, bool keep_layers,
                  std::vector<float>* outputs, std::vector<LayerValue>* layers,
                  std::string* error) {
  std::vector<LayerValue> scratch;
  Interpreter& interp = taps.interpreter();
  size_t at = 0;
  for (size_t r = 0; r < runs; ++r) {
    for (size_t i = 0; i < interp.num_inputs(); ++i) {
      const size_t elems = interp.input(i).elems;
      const Status st = interp.input(i).dtype == DType::kInt8
                            ? interp.QuantizeInput(i, inputs.data() + at, elems)
                            : interp.SetInput(i, inputs.data() + at, elems);
      if (st != Status::kOk)
        return *error = std::string("input '") + interp.input(i).name + "': " + StatusName(st),
               false;
      at += elems;
    }
    scratch.clear();
    if (!taps.Run(keep_layers ? layers : &scratch, error)) return false;
    for (size_t o = 0; o < interp.num_outputs(); ++o) {
      const size_t elems = interp.output(o).elems;
      outputs->resize(outputs->size() + elems);
      const Status st =
          interp.DequantizeOutput(o, outputs->data() + outputs->size() - elems, elems);
      if (st != Status::kOk)
        return *error = std::string("output '") + interp.output(o).name + "': " + StatusName(st),
               false;
    }
  }
  return true;
}

// One .npy per output holding every run's values, in the layout of `outputs` (run-major).
bool LoadExpected(const std::vector<std::string>& paths, Interpreter& interp, size_t runs,
                  std::vector<float>* flat, std::string* error) {
  if (paths.size() != interp.num_outputs())
    return *error = "the model has " + std::to_string(interp.num_outputs()) + " output(s), got " +
                    std::to_string(paths.size()) + " --expected file(s)",
           false;
  std::vector<NpyArray> arrays(paths.size());
  for (size_t o = 0; o < paths.size(); ++o) {
    if (!ReadNpy(paths[o], &arrays[o], error)) return false;
    const TensorView v = interp.output(o);
    if (arrays[o].dtype != NpyDType::kFloat32 || arrays[o].elems() != runs * v.elems)
      return *error = "output " + std::to_string(o) + " '" + v.name + "': " + paths[o] + " holds " +
                      std::to_string(arrays[o].elems()) + " values" +
                      (arrays[o].dtype == NpyDType::kFloat32 ? "" : " (not float32)") +
                      ", want float32, " + std::to_string(runs) + " run(s) of " +
                      std::to_string(v.elems),
             false;
  }
  for (size_t r = 0; r < runs; ++r)
    for (size_t o = 0; o < arrays.size(); ++o) {
      const size_t elems = interp.output(o).elems;
      const float* y = arrays[o].f32.data() + r * elems;
      flat->insert(flat->end(), y, y + elems);
    }
  return true;
}

// The limits from the flags; a usage error, or "".
std::string CheckArgs(const ParsedArgs& args, const TargetInfo* target,
                      const std::string& target_name, ValidateLimits* limits) {
  limits->min_top1 = std::atof(args.Get("--min-top1", "0.99").c_str());
  limits->max_abs = args.Has("--max-abs") ? std::atof(args.Get("--max-abs", "").c_str())
                                          : std::numeric_limits<double>::infinity();
  limits->tolerance = std::atof(args.Get("--tolerance", "-1").c_str());
  limits->min_within = std::atof(args.Get("--min-within", "0.99").c_str());
  if (target == nullptr && target_name != "host")
    return "unknown --target '" + target_name + "' (host, " + TargetNames(false) + ")";
  if (args.All("--inputs").empty()) return "no --inputs";
  if (!(limits->min_top1 >= 0 && limits->min_top1 <= 1)) return "--min-top1 must be in [0, 1]";
  if (!(limits->max_abs >= 0)) return "--max-abs must be >= 0";
  if (args.Has("--tolerance") && !(limits->tolerance >= 0)) return "--tolerance must be >= 0";
  if (!(limits->min_within >= 0 && limits->min_within <= 1))
    return "--min-within must be in [0, 1]";
  return "";
}

// The target's run of `model`: in-process for host (target == nullptr), else the validation
// program `runner` under QEMU; its op outputs into `layers` with per_layer.
bool RunTarget(const TargetInfo* target, const std::string& runner,
               const std::vector<uint8_t>& model, const std::string& what,
               const std::vector<float>& inputs, bool per_layer, ValidateRun* run,
               std::vector<LayerValue>* layers, std::string* error) {
  if (target == nullptr) {
    LayerTaps local;
    if (!local.Open(model, what + " (target host)", error) ||
        !RunInProcess(local, inputs, run->runs, per_layer, &run->target_outputs, layers, error))
      return false;
    run->kernels = local.interpreter().kernel_isa_name();
    run->model_bytes = static_cast<long>(model.size());
    run->arena_bytes = static_cast<long>(local.interpreter().arena_used_bytes());
    return true;
  }
  TargetResult r;
  if (!RunOnTarget(*target, runner, model, inputs, per_layer, &r, error) ||
      (per_layer && !DecodeTargetTaps(model.data(), r.taps, layers, error)))
    return false;
  run->target_outputs = std::move(r.outputs);
  run->summary = r.summary;
  return true;
}

}  // namespace

int ValidateCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--inputs",  "--expected", "--target",    "--target-build", "--min-top1",
                      "--max-abs", "--json",     "--tolerance", "--min-within"};
  spec.bool_flags = {"--per-layer", "--quiet"};
  spec.aliases = {{"-i", "--inputs"}, {"--input", "--inputs"}};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  const std::string target_name = args.Get("--target", "host");
  const TargetInfo* target = FindTarget(target_name);
  ValidateLimits limits;
  const std::string usage_error = CheckArgs(args, target, target_name, &limits);
  if (!usage_error.empty()) {
    std::fprintf(stderr, "edgefold validate: %s\n\n%s", usage_error.c_str(), kUsage);
    return kExitUsage;
  }
  const std::string& efb_path = args.positional[0];
  const bool per_layer = args.Has("--per-layer");
  std::string error, runner;
  AlignedBuffer file;
  LayerTaps host;
  ValidateRun run;
  run.target = target_name;
  std::vector<float> inputs, expected;
  std::vector<LayerValue> target_layers;
  bool ok =
      (target == nullptr || FindRunner(*target, args.Get("--target-build", ""), &runner, &error)) &&
      ReadFileAligned(efb_path, &file, &error);
  const std::vector<uint8_t> model =
      ok ? std::vector<uint8_t>(file.data.get(), file.data.get() + file.bytes)
         : std::vector<uint8_t>();
  ok = ok && host.Open(model, efb_path, &error) &&
       LoadInputs(args.All("--inputs"), host.interpreter(), &inputs, &run.runs, &error) &&
       (!args.Has("--expected") ||
        LoadExpected(args.All("--expected"), host.interpreter(), run.runs, &expected, &error)) &&
       RunInProcess(host, inputs, run.runs, per_layer, &run.host_outputs, &run.host_layers, &error);
  ok = ok &&
       RunTarget(target, runner, model, efb_path, inputs, per_layer, &run, &target_layers, &error);
  if (ok && run.target_outputs.size() != run.host_outputs.size()) {
    error = "--target " + target_name + " wrote " + std::to_string(run.target_outputs.size()) +
            " output values, the host " + std::to_string(run.host_outputs.size());
    ok = false;
  }
  ValidateReport report;
  ok = ok && BuildReport(host.interpreter(), run, expected, per_layer ? &target_layers : nullptr,
                         limits, &report, &error);
  if (ok && args.Has("--json")) ok = WriteReportJson(args.Get("--json", ""), report, &error);
  if (!ok) {
    std::fprintf(stderr, "edgefold validate: %s\n", error.c_str());
    if (args.Has("--json")) WriteErrorJson(args.Get("--json", ""), error);
    return kExitFailure;
  }
  if (!args.Has("--quiet")) PrintReport(report, limits);
  return report.pass ? kExitOk : kExitFailure;
}

}  // namespace edgefold::tools
