// edgefold diff MODEL.onnx MODEL.efb -i X.npy: where a compiled model starts to differ from its
// ONNX model, layer by layer.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "layer_diff.h"
#include "ort_session.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold diff MODEL.onnx MODEL.efb -i IN.npy [-i IN2.npy ...] [--jump-db D]\n"
    "                     [--ort [--ort-lib PATH]]\n"
    "\n"
    "Runs MODEL.onnx with the compiler's float reference (compiled with nothing folded or fused)\n"
    "and MODEL.efb with the runtime on the same inputs, matches every op output of MODEL.efb with\n"
    "the ONNX tensor of the same name (folding and fusion keep the name of the tensor an op\n"
    "computes; int8 outputs are dequantized) and prints per layer the largest absolute error,\n"
    "the largest relative to the reference's largest |value|, and the SQNR over all runs\n"
    "(10*log10(sum ref^2 / sum (ref - efb)^2)). Then the first layer whose error jumps: its SQNR\n"
    "more than D dB (default 10) below every layer before it, SQNR above 100 dB counting as 100\n"
    "(the first layer: below 20 dB). MODEL.efb may be float, int8 (--quantize int8 or a QDQ\n"
    "model, whose reference is its float model) or adapted from MODEL.onnx (edgefold train).\n"
    "Inputs as for run: one -i per model input, the leading dim a multiple of the model's batch\n"
    "(one run per slice).\n"
    "--ort: the reference is ONNX Runtime instead (its C API, loaded at run time from --ort-lib,\n"
    "else $EDGEFOLD_ORT_LIB, else libonnxruntime.so.1; bench/ort_lib.sh prints the path): it\n"
    "exposes only the graph's outputs, so only the .efb op outputs of those names are compared.\n";

// ONNX Runtime: the graph's outputs only, the inputs shaped as the .efb's.
bool OpenOrtReference(const std::string& onnx_path, const std::string& library_flag,
                      Interpreter& efb, OrtSession* ort, std::string* error) {
  const std::string library = FindOrtLibrary(library_flag, error);
  if (library.empty() || !ort->Open(library, onnx_path, 1, error)) return false;
  if (ort->num_inputs() != efb.num_inputs())
    return *error = onnx_path + ": ONNX Runtime sees " + std::to_string(ort->num_inputs()) +
                    " input(s), the .efb has " + std::to_string(efb.num_inputs()),
           false;
  return true;
}

// (inputs not const: ONNX Runtime's tensors wrap their data.)
DiffReference OrtReference(OrtSession& ort, Interpreter& efb, std::vector<NpyArray>& inputs) {
  return [&ort, &efb, &inputs](size_t run, std::vector<LayerValue>* want, std::string* error) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorView in = efb.input(i);
      std::vector<int64_t> shape;
      for (int d = 0; d < in.rank; ++d) shape.push_back(in.shape[d]);
      if (!ort.SetInput(i, inputs[i].f32.data() + run * in.elems, shape, error)) return false;
    }
    if (!ort.Run(error)) return false;
    for (size_t o = 0; o < ort.num_outputs(); ++o) {
      LayerValue v;
      std::vector<int64_t> shape;
      v.tensor = ort.output_name(o);
      if (!ort.Output(o, &v.values, &shape, error)) return false;
      want->push_back(std::move(v));
    }
    return true;
  };
}

void PrintTable(const LayerDiff& diff, double jump_db, const char* unmatched_are) {
  std::printf(
      "%zu run(s), %zu layers compared (%zu op outputs of the .efb have no reference tensor of "
      "their name: %s)\n",
      diff.runs, diff.layers.size(), diff.unmatched, unmatched_are);
  std::printf("  %-32s %-22s %-24s %11s %11s %9s\n", "layer", "type", "tensor", "max abs",
              "max rel", "SQNR dB");
  for (const LayerReport& e : diff.layers)
    std::printf("  %-32.32s %-22.22s %-24.24s %11.4g %11.4g %9.2f\n", e.op_name.c_str(),
                (e.op_type + (e.int8 ? " (int8)" : "")).c_str(), e.tensor.c_str(), e.max_abs,
                e.max_ref > 0 ? e.max_abs / e.max_ref : 0.0, e.SqnrDb());
  if (diff.first_jump < 0) {
    std::printf("no layer's error jumps by more than %g dB\n", jump_db);
  } else {
    const LayerReport& e = diff.layers[static_cast<size_t>(diff.first_jump)];
    std::printf("first layer whose error jumps: '%s' (%s, tensor '%s'), SQNR %.2f dB\n",
                e.op_name.c_str(), e.op_type.c_str(), e.tensor.c_str(), e.SqnrDb());
  }
}

// --ort: ONNX Runtime as the reference; at least one graph output must match an op output.
bool DiffAgainstOrt(const std::string& onnx_path, const std::string& efb_path,
                    const std::string& library_flag, LayerTaps& efb, std::vector<NpyArray>& inputs,
                    size_t runs, double jump_db, OrtSession* ort, LayerDiff* diff,
                    std::string* error) {
  if (!OpenOrtReference(onnx_path, library_flag, efb.interpreter(), ort, error) ||
      !CompareLayers(OrtReference(*ort, efb.interpreter(), inputs), efb, inputs, runs, jump_db,
                     diff, error))
    return false;
  if (!diff->layers.empty()) return true;
  *error = efb_path + ": no op output carries the name of a graph output of " + onnx_path +
           " (ONNX Runtime's outputs: " + ort->output_name(0) +
           (ort->num_outputs() > 1 ? ", ..." : "") + ")";
  return false;
}

// The flags; false after printing a usage error (or the help) with `exit_code` set.
bool ParseDiffArgs(int argc, char** argv, ParsedArgs* args, double* jump_db, int* exit_code) {
  ArgSpec spec;
  spec.value_flags = {"--input", "--jump-db", "--ort-lib"};
  spec.bool_flags = {"--ort"};
  spec.aliases = {{"-i", "--input"}};
  spec.min_positional = spec.max_positional = 2;
  std::string error;
  if (!ParseArgs(argc, argv, spec, args, &error)) {
    std::fprintf(stderr, "edgefold diff: %s\n\n%s", error.c_str(), kUsage);
    return *exit_code = kExitUsage, false;
  }
  if (args->help) {
    std::printf("%s", kUsage);
    return *exit_code = kExitOk, false;
  }
  *jump_db = std::atof(args->Get("--jump-db", "10").c_str());
  if (args->All("--input").empty() || !(*jump_db > 0)) {
    std::fprintf(stderr, "edgefold diff: %s\n\n%s",
                 args->All("--input").empty() ? "no -i input" : "--jump-db must be > 0", kUsage);
    return *exit_code = kExitUsage, false;
  }
  return true;
}

}  // namespace

int DiffCommand(int argc, char** argv) {
  ParsedArgs args;
  double jump_db = 0;
  int exit_code = kExitOk;
  if (!ParseDiffArgs(argc, argv, &args, &jump_db, &exit_code)) return exit_code;
  const std::string& onnx_path = args.positional[0];
  const std::string& efb_path = args.positional[1];
  const bool with_ort = args.Has("--ort");
  std::string error;
  AlignedBuffer efb_file;
  LayerTaps ref, efb;
  OrtSession ort;
  std::vector<NpyArray> inputs;
  LayerDiff diff;
  size_t runs = 0;
  bool ok =
      ReadFileAligned(efb_path, &efb_file, &error) &&
      efb.Open(std::vector<uint8_t>(efb_file.data.get(), efb_file.data.get() + efb_file.bytes),
               efb_path, &error) &&
      LoadDiffInputs(args.All("--input"), efb.interpreter(), &inputs, &runs, &error);
  if (ok && with_ort)
    ok = DiffAgainstOrt(onnx_path, efb_path, args.Get("--ort-lib", ""), efb, inputs, runs, jump_db,
                        &ort, &diff, &error);
  else if (ok)
    ok = OpenFloatReference(onnx_path, &ref, &error) &&
         CompareLayers(FloatReference(ref, inputs), efb, inputs, runs, jump_db, &diff, &error);
  if (!ok) {
    std::fprintf(stderr, "edgefold diff: %s\n", error.c_str());
    return kExitFailure;
  }
  if (with_ort)
    std::printf("reference: ONNX Runtime %s (C API, CPU provider), the graph's outputs only\n",
                ort.version());
  PrintTable(diff, jump_db,
             with_ort ? "ONNX Runtime gives the graph's outputs only"
                      : "quantize/dequantize boundaries, requantizations");
  return kExitOk;
}

}  // namespace edgefold::tools
