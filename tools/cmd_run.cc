// edgefold run MODEL.efb -i IN.npy [-i ...] -o OUT.npy [-o ...] [--isa NAME] [--dequantize]
#include <cstdio>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "model_session.h"
#include "npy.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold run MODEL.efb -i IN.npy [-i IN2.npy ...] -o OUT.npy [-o OUT2.npy ...]\n"
    "                    [--isa auto|scalar|sse4.2|avx2+fma|avx512|neon] [--threads N] "
    "[--dequantize]\n"
    "\n"
    "Runs the model on float32 .npy inputs and writes float32 .npy outputs.\n"
    "A model compiled with --io int8 has int8 inputs and outputs: an int8 ('|i1') input file\n"
    "is used as is, a float32 one is quantized with the input's scale and zero point (as the\n"
    "Quantize op would); outputs are written as int8 .npy with their scale and zero point\n"
    "printed (real = (q - zero_point) * scale), or dequantized to float32 with --dequantize.\n"
    "Inputs and outputs are given in graph order: one -i per model input; one -o per\n"
    "output to keep (at least one; extra outputs beyond the -o list are not written).\n"
    "\n"
    "--isa: a level (default: the best this CPU runs); avx2+vnni names the avx2+fma level,\n"
    "whose AVX-VNNI kernels run wherever the CPU has AVX-VNNI.\n"
    "\n"
    "Batching: if every input's leading dim is k times the model's batch dim (other dims\n"
    "equal, same k for all inputs), the model runs k times on consecutive slices and the\n"
    "outputs are stacked along the leading dim.\n";

// How many model-sized slices `file` holds for model input `view`; 0 with `error` if none.
size_t SlicesFor(const NpyArray& file, const std::string& path, const TensorView& view,
                 size_t index, std::string* error) {
  const std::vector<int64_t> want = ViewShape(view);
  const std::vector<int64_t>& got = file.shape;
  bool tail_equal = got.size() == want.size() && !want.empty();
  for (size_t d = 1; tail_equal && d < want.size(); ++d) tail_equal = got[d] == want[d];
  if (got == want) return 1;
  if (tail_equal && want[0] > 0 && got[0] > 0 && got[0] % want[0] == 0) {
    return static_cast<size_t>(got[0] / want[0]);
  }
  *error = "input " + std::to_string(index) + " '" + view.name + "': " + path + " has shape " +
           ShapeToString(got) + " but the model expects " + ShapeToString(want) +
           " (or a multiple of its leading dim)";
  return 0;
}

bool LoadInputs(ModelSession& session, const std::vector<std::string>& paths,
                std::vector<NpyArray>* arrays, size_t* slices, std::string* error) {
  Interpreter& interp = session.interpreter();
  if (paths.size() != interp.num_inputs()) {
    *error = "the model has " + std::to_string(interp.num_inputs()) + " input(s), got " +
             std::to_string(paths.size()) + " -i file(s)";
    return false;
  }
  arrays->resize(paths.size());
  *slices = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    NpyArray& a = (*arrays)[i];
    if (!ReadNpy(paths[i], &a, error)) return false;
    const TensorView v = interp.input(i);
    const bool int8_input = v.dtype == DType::kInt8;
    if (a.dtype == NpyDType::kInt64 || (a.dtype == NpyDType::kInt8 && !int8_input)) {
      *error = paths[i] + ": input " + std::to_string(i) + " '" + v.name +
               "' must be float32 ('<f4')" + (int8_input ? " or int8 ('|i1')" : "") +
               ", the file holds " + (a.dtype == NpyDType::kInt64 ? "int64" : "int8");
      return false;
    }
    if (int8_input)
      std::printf(
          "input %zu '%s' is int8 (scale %.9g, zero point %d): %s\n", i, v.name, double(v.scale),
          int(v.zero_point),
          a.dtype == NpyDType::kInt8 ? "int8 data used as is" : "float32 data quantized with them");
    const size_t k = SlicesFor(a, paths[i], v, i, error);
    if (k == 0) return false;
    if (*slices != 0 && k != *slices) {
      *error = "input " + std::to_string(i) + " '" + v.name + "' holds " + std::to_string(k) +
               " batch slices but input 0 holds " + std::to_string(*slices);
      return false;
    }
    *slices = k;
  }
  return true;
}

// Slice s of `a` into input i, by the setter that fits the input's and the file's dtypes.
Status SetSlice(Interpreter& interp, size_t i, const NpyArray& a, size_t s) {
  const size_t elems = interp.input(i).elems;
  if (a.dtype == NpyDType::kInt8) return interp.SetInputS8(i, a.s8.data() + s * elems, elems);
  if (interp.input(i).dtype == DType::kInt8)
    return interp.QuantizeInput(i, a.f32.data() + s * elems, elems);
  return interp.SetInput(i, a.f32.data() + s * elems, elems);
}

// Runs every slice and writes the first outputs.size() graph outputs: float32, or int8 unless
// `dequantize`.
bool RunSlices(ModelSession& session, const std::vector<NpyArray>& inputs, size_t slices,
               const std::vector<std::string>& outputs, bool dequantize, std::string* error) {
  Interpreter& interp = session.interpreter();
  std::vector<std::vector<float>> results(outputs.size());
  std::vector<std::vector<int8_t>> results_s8(outputs.size());
  for (size_t s = 0; s < slices; ++s) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      Status st = SetSlice(interp, i, inputs[i], s);
      if (st != Status::kOk) {
        *error = session.Describe("SetInput", st);
        return false;
      }
    }
    Status st = interp.Invoke();
    if (st != Status::kOk) {
      *error = session.Describe("Invoke", st);
      return false;
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      const TensorView v = interp.output(o);
      if (v.dtype == DType::kInt8 && !dequantize) {
        results_s8[o].insert(results_s8[o].end(), v.data_s8, v.data_s8 + v.elems);
        continue;
      }
      results[o].resize(results[o].size() + v.elems);
      st = interp.DequantizeOutput(o, results[o].data() + results[o].size() - v.elems, v.elems);
      if (st != Status::kOk) {
        *error = session.Describe("DequantizeOutput", st);
        return false;
      }
    }
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const TensorView v = interp.output(o);
    std::vector<int64_t> shape = ViewShape(v);
    if (shape.empty() && slices > 1) shape = {1};  // stack scalars along a new leading dim
    if (slices > 1) shape[0] *= static_cast<int64_t>(slices);
    if (v.dtype == DType::kInt8)
      std::printf(
          "output %zu '%s' is int8 (scale %.9g, zero point %d; real = (q - zero point) * scale): "
          "%s\n",
          o, v.name, double(v.scale), int(v.zero_point),
          dequantize ? "written dequantized as float32"
                     : "written as int8 (--dequantize for float32)");
    const bool ok =
        v.dtype == DType::kInt8 && !dequantize
            ? WriteNpyInt8(outputs[o], results_s8[o].data(), results_s8[o].size(), shape, error)
            : WriteNpyFloat32(outputs[o], results[o].data(), results[o].size(), shape, error);
    if (!ok) return false;
  }
  return true;
}

}  // namespace

int RunCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--input", "--output", "--isa", "--threads"};
  spec.bool_flags = {"--dequantize"};
  spec.aliases = {{"-i", "--input"}, {"-o", "--output"}};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  Isa isa = Isa::kAuto;
  if (!ParseIsa(args.Get("--isa", "auto").c_str(), &isa)) {
    std::fprintf(stderr, "edgefold run: unknown --isa '%s'\n\n%s", args.Get("--isa", "").c_str(),
                 kUsage);
    return kExitUsage;
  }
  int threads = 1;
  std::string threads_error;
  if (!ParseCount("--threads", args.Get("--threads", "1"), &threads, &threads_error) ||
      threads < 1) {
    std::fprintf(stderr, "edgefold run: --threads must be at least 1\n\n%s", kUsage);
    return kExitUsage;
  }
  const std::vector<std::string> inputs = args.All("--input");
  const std::vector<std::string> outputs = args.All("--output");
  if (inputs.empty() || outputs.empty()) {
    std::fprintf(stderr, "edgefold run: need at least one -i and one -o\n\n%s", kUsage);
    return kExitUsage;
  }
  ModelSession session;
  session.SetThreads(static_cast<size_t>(threads));
  std::string error;
  std::vector<NpyArray> arrays;
  size_t slices = 0;
  bool ok = session.Open(args.positional[0], isa, &error) &&
            LoadInputs(session, inputs, &arrays, &slices, &error);
  if (ok && outputs.size() > session.interpreter().num_outputs()) {
    error = "the model has " + std::to_string(session.interpreter().num_outputs()) +
            " output(s), got " + std::to_string(outputs.size()) + " -o file(s)";
    ok = false;
  }
  ok = ok && RunSlices(session, arrays, slices, outputs, args.Has("--dequantize"), &error);
  if (!ok) {
    std::fprintf(stderr, "edgefold run: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf("ran %s on %zu slice(s) with %s kernels, wrote %zu output(s)\n",
              args.positional[0].c_str(), slices, session.interpreter().kernel_isa_name(),
              outputs.size());
  return kExitOk;
}

}  // namespace edgefold::tools
