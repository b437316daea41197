// edgefold diff MODEL.onnx MODEL.efb -i X.npy: where a compiled model starts to differ from its
// ONNX model, layer by layer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "edgefold_compiler/compiler.h"
#include "layer_taps.h"
#include "npy.h"
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

constexpr double kSqnrCapDb = 100.0;
constexpr double kFirstLayerFloorDb = 20.0;

struct LayerError {
  std::string op_name, op_type, tensor;
  bool int8 = false;
  double max_abs = 0, max_ref = 0, signal = 0, noise = 0;

  void Add(const std::vector<float>& ref, const std::vector<float>& got) {
    for (size_t i = 0; i < ref.size(); ++i) {
      const double d = static_cast<double>(got[i]) - ref[i];
      max_abs = std::max(max_abs, std::fabs(d));
      max_ref = std::max(max_ref, std::fabs(static_cast<double>(ref[i])));
      signal += static_cast<double>(ref[i]) * ref[i];
      noise += d * d;
    }
  }
  double SqnrDb() const {
    if (noise == 0) return std::numeric_limits<double>::infinity();
    return signal == 0 ? -std::numeric_limits<double>::infinity()
                       : 10.0 * std::log10(signal / noise);
  }
};

// The reference: the ONNX model with nothing folded or fused, so that every ONNX tensor a
// compiled model keeps is an op output here too.
bool CompileReference(const std::string& onnx_path, std::vector<uint8_t>* bytes,
                      std::string* error) {
  compiler::CompileOptions o;
  o.fold_batchnorm = false;
  o.fuse_activations = false;
  o.winograd = false;
  o.verify = false;
  o.expansion_band_kb = 0;
  o.qdq_as_float =
      true;  // a QDQ model: its float model, so the table shows the quantization's error
  compiler::CompileResult r = compiler::CompileFile(onnx_path, o);
  if (!r.ok) return *error = r.error, false;
  *bytes = std::move(r.model);
  return true;
}

// Runs per input slice; `inputs` already checked to hold `runs` slices of every model input.
bool SetInputs(Interpreter& interp, const std::vector<NpyArray>& inputs, size_t run,
               std::string* error) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t elems = interp.input(i).elems;
    const float* x = inputs[i].f32.data() + run * elems;
    const Status st = interp.input(i).dtype == DType::kInt8 ? interp.QuantizeInput(i, x, elems)
                                                            : interp.SetInput(i, x, elems);
    if (st != Status::kOk)
      return *error = "input " + std::to_string(i) + ": " + StatusName(st), false;
  }
  return true;
}

bool LoadInputs(const std::vector<std::string>& paths, Interpreter& interp,
                std::vector<NpyArray>* out, size_t* runs, std::string* error) {
  if (paths.size() != interp.num_inputs())
    return *error = "the model has " + std::to_string(interp.num_inputs()) + " input(s), got " +
                    std::to_string(paths.size()) + " -i file(s)",
           false;
  out->resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!ReadNpy(paths[i], &(*out)[i], error)) return false;
    const size_t elems = interp.input(i).elems, have = (*out)[i].f32.size();
    if ((*out)[i].dtype != NpyDType::kFloat32 || elems == 0 || have == 0 || have % elems != 0)
      return *error = paths[i] + ": want float32 data, a multiple of input '" +
                      interp.input(i).name + "' (" + std::to_string(elems) + " values)",
             false;
    if (i > 0 && have / elems != *runs)
      return *error = paths[i] + ": another number of slices than input 0", false;
    *runs = have / elems;
  }
  return true;
}

// The reference's tensors of one run (slice `run` of the inputs), by ONNX tensor name.
using Reference =
    std::function<bool(size_t run, std::vector<LayerValue>* want, std::string* error)>;

// The compiler's float reference: every op output.
Reference FloatReference(LayerTaps& ref, const std::vector<NpyArray>& inputs) {
  return [&ref, &inputs](size_t run, std::vector<LayerValue>* want, std::string* error) {
    return SetInputs(ref.interpreter(), inputs, run, error) && ref.Run(want, error);
  };
}

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

Reference OrtReference(OrtSession& ort, Interpreter& efb, std::vector<NpyArray>& inputs) {
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

// Per op output of the .efb that has an ONNX counterpart, the error over every run.
bool Compare(const Reference& reference, LayerTaps& efb, const std::vector<NpyArray>& inputs,
             size_t runs, std::vector<LayerError>* layers, size_t* unmatched, std::string* error) {
  for (size_t run = 0; run < runs; ++run) {
    std::vector<LayerValue> want, got;
    if (!reference(run, &want, error)) return false;
    if (!SetInputs(efb.interpreter(), inputs, run, error) || !efb.Run(&got, error)) return false;
    std::map<std::string, const LayerValue*> by_name;
    for (const LayerValue& v : want) by_name[v.tensor] = &v;
    if (run == 0) {
      *unmatched = 0;
      for (const LayerValue& g : got) {
        auto it = by_name.find(g.tensor);
        if (it == by_name.end() || it->second->values.size() != g.values.size()) {
          ++*unmatched;
          continue;
        }
        LayerError e;
        e.op_name = g.op_name;
        e.op_type = g.op_type;
        e.tensor = g.tensor;
        e.int8 = g.int8;
        layers->push_back(e);
      }
    }
    std::map<std::string, const LayerValue*> got_by_name;
    for (const LayerValue& g : got) got_by_name[g.tensor] = &g;
    for (LayerError& e : *layers)
      e.Add(by_name.at(e.tensor)->values, got_by_name.at(e.tensor)->values);
  }
  return true;
}

// Index of the first layer whose SQNR falls more than jump_db below every earlier layer's
// (capped at kSqnrCapDb), or the first layer itself below kFirstLayerFloorDb; -1 if none.
int FirstJump(const std::vector<LayerError>& layers, double jump_db) {
  double floor = kSqnrCapDb;
  for (size_t i = 0; i < layers.size(); ++i) {
    const double db = std::min(layers[i].SqnrDb(), kSqnrCapDb);
    if (i == 0 ? db < kFirstLayerFloorDb : db < floor - jump_db) return static_cast<int>(i);
    floor = std::min(floor, db);
  }
  return -1;
}

void PrintTable(const std::vector<LayerError>& layers, size_t runs, size_t unmatched,
                const char* unmatched_are) {
  std::printf(
      "%zu run(s), %zu layers compared (%zu op outputs of the .efb have no reference tensor of "
      "their name: %s)\n",
      runs, layers.size(), unmatched, unmatched_are);
  std::printf("  %-32s %-22s %-24s %11s %11s %9s\n", "layer", "type", "tensor", "max abs",
              "max rel", "SQNR dB");
  for (const LayerError& e : layers)
    std::printf("  %-32.32s %-22.22s %-24.24s %11.4g %11.4g %9.2f\n", e.op_name.c_str(),
                (e.op_type + (e.int8 ? " (int8)" : "")).c_str(), e.tensor.c_str(), e.max_abs,
                e.max_ref > 0 ? e.max_abs / e.max_ref : 0.0, e.SqnrDb());
}

}  // namespace

int DiffCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--input", "--jump-db", "--ort-lib"};
  spec.bool_flags = {"--ort"};
  spec.aliases = {{"-i", "--input"}};
  spec.min_positional = spec.max_positional = 2;
  ParsedArgs args;
  std::string error;
  if (!ParseArgs(argc, argv, spec, &args, &error)) {
    std::fprintf(stderr, "edgefold diff: %s\n\n%s", error.c_str(), kUsage);
    return kExitUsage;
  }
  if (args.help) {
    std::printf("%s", kUsage);
    return kExitOk;
  }
  const double jump_db = std::atof(args.Get("--jump-db", "10").c_str());
  if (args.All("--input").empty() || !(jump_db > 0)) {
    std::fprintf(stderr, "edgefold diff: %s\n\n%s",
                 args.All("--input").empty() ? "no -i input" : "--jump-db must be > 0", kUsage);
    return kExitUsage;
  }
  const std::string& onnx_path = args.positional[0];
  const std::string& efb_path = args.positional[1];
  const bool with_ort = args.Has("--ort");
  std::vector<uint8_t> ref_bytes;
  AlignedBuffer efb_file;
  LayerTaps ref, efb;
  OrtSession ort;
  std::vector<NpyArray> inputs;
  std::vector<LayerError> layers;
  size_t runs = 0, unmatched = 0;
  bool ok =
      ReadFileAligned(efb_path, &efb_file, &error) &&
      efb.Open(std::vector<uint8_t>(efb_file.data.get(), efb_file.data.get() + efb_file.bytes),
               efb_path, &error) &&
      LoadInputs(args.All("--input"), efb.interpreter(), &inputs, &runs, &error);
  if (ok && with_ort) {
    ok = OpenOrtReference(onnx_path, args.Get("--ort-lib", ""), efb.interpreter(), &ort, &error) &&
         Compare(OrtReference(ort, efb.interpreter(), inputs), efb, inputs, runs, &layers,
                 &unmatched, &error);
    if (ok && layers.empty()) {
      error = efb_path + ": no op output carries the name of a graph output of " + onnx_path +
              " (ONNX Runtime's outputs: " + ort.output_name(0) +
              (ort.num_outputs() > 1 ? ", ..." : "") + ")";
      ok = false;
    }
  } else if (ok) {
    ok = CompileReference(onnx_path, &ref_bytes, &error) &&
         ref.Open(ref_bytes, onnx_path + " (reference)", &error) &&
         Compare(FloatReference(ref, inputs), efb, inputs, runs, &layers, &unmatched, &error);
  }
  if (!ok) {
    std::fprintf(stderr, "edgefold diff: %s\n", error.c_str());
    return kExitFailure;
  }
  if (with_ort)
    std::printf("reference: ONNX Runtime %s (C API, CPU provider), the graph's outputs only\n",
                ort.version());
  PrintTable(layers, runs, unmatched,
             with_ort ? "ONNX Runtime gives the graph's outputs only"
                      : "quantize/dequantize boundaries, requantizations");
  const int jump = FirstJump(layers, jump_db);
  if (jump < 0) {
    std::printf("no layer's error jumps by more than %g dB\n", jump_db);
  } else {
    const LayerError& e = layers[static_cast<size_t>(jump)];
    std::printf("first layer whose error jumps: '%s' (%s, tensor '%s'), SQNR %.2f dB\n",
                e.op_name.c_str(), e.op_type.c_str(), e.tensor.c_str(), e.SqnrDb());
  }
  return kExitOk;
}

}  // namespace edgefold::tools
