// edgefold inspect MODEL.efb
#include <cstdio>
#include <string>

#include "cli_args.h"
#include "commands.h"
#include "edgefold/interpreter.h"
#include "dot_export.h"
#include "efb_describe.h"
#include "file_io.h"
#include "memory_plot.h"
#include "target_footprint.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold inspect MODEL.efb [--dot GRAPH.dot] [--memory-plot PLAN.svg|PLAN.png]\n"
    "                        [--target m4|m7|m55 [--target-build DIR]]\n"
    "\n"
    "Prints the format version, producer, graph inputs/outputs (with their dtype, and scale and\n"
    "zero point when int8), every operator (type,\n"
    "fused activation, name, input and output shapes), every tensor (shape, dtype, arena or\n"
    "weight offset, bytes), the planned arena and its lower bound, weight bytes, and the\n"
    "kernel ISA the runtime would choose on this machine.\n"
    "\n"
    "options:\n"
    "  --dot PATH           write the (folded) graph for Graphviz: ops annotated with type,\n"
    "                       name, output shapes and bytes; tensors as edges\n"
    "                       (render: dot -Tsvg PATH -o graph.svg)\n"
    "  --memory-plot PATH   draw the arena over time (.svg or .png): x = op step, y = arena\n"
    "                       offset, each tensor a bar over [producer, last consumer], op\n"
    "                       scratch in grey, planned total and lower bound as dashed lines\n"
    "  --target m4|m7|m55   flash and RAM on that target: the validation firmware of its cross\n"
    "                       build (--target-build DIR, default build-<target> next to this\n"
    "                       build) linked with this model's ops, from its link map, plus the\n"
    "                       arena and the stack high-water mark of one run under QEMU\n"
    "                       (docs/validate.md)\n";

// Writes the --dot and --memory-plot files that were asked for. False after printing why.
bool WritePictures(const fb::Model& m, const std::string& model_path, const ParsedArgs& args) {
  std::string error;
  if (args.Has("--dot")) {
    const std::string path = args.Get("--dot", "");
    const std::string dot = ModelToDot(m, model_path);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(dot.data(), 1, dot.size(), f) != dot.size()) {
      if (f) std::fclose(f);
      std::fprintf(stderr, "edgefold inspect: cannot write '%s'\n", path.c_str());
      return false;
    }
    std::fclose(f);
    std::printf("wrote graph: %s\n", path.c_str());
  }
  if (args.Has("--memory-plot")) {
    const std::string path = args.Get("--memory-plot", "");
    MemoryPlot plot;
    if (!BuildMemoryPlot(m, model_path + " arena plan", &plot, &error) ||
        !WriteMemoryPlot(plot, path, &error)) {
      std::fprintf(stderr, "edgefold inspect: %s: %s\n", model_path.c_str(), error.c_str());
      return false;
    }
    std::printf("wrote memory plot: %s (%zu bars over %d op steps)\n", path.c_str(),
                plot.bars.size(), plot.num_steps);
  }
  return true;
}

void PrintGraphIo(const fb::Model& m, const char* label, const flatbuffers::Vector<int32_t>* v) {
  std::printf("%s:\n", label);
  for (flatbuffers::uoffset_t i = 0; v && i < v->size(); ++i) {
    std::printf("  %s%s\n", DescribeTensorRef(m, v->Get(i)).c_str(),
                DescribeDType(m, v->Get(i)).c_str());
  }
}

void PrintOperators(const fb::Model& m) {
  const auto* ops = m.operators();
  std::printf("operators (%u):\n", ops ? ops->size() : 0u);
  for (flatbuffers::uoffset_t i = 0; ops && i < ops->size(); ++i) {
    const fb::Operator* op = ops->Get(i);
    std::printf("  #%u %s '%s'\n", i, DescribeOpType(*op).c_str(),
                op->name() ? op->name()->c_str() : "");
    for (const auto* list : {op->inputs(), op->outputs()}) {
      std::printf("      %s:", list == op->inputs() ? "in " : "out");
      for (flatbuffers::uoffset_t j = 0; list && j < list->size(); ++j) {
        std::printf("%s %s", j ? "," : "", DescribeTensorRef(m, list->Get(j)).c_str());
      }
      std::printf("\n");
    }
    if (op->scratch_bytes() > 0) {
      std::printf("      scratch: %llu B at arena@%lld\n",
                  static_cast<unsigned long long>(op->scratch_bytes()),
                  static_cast<long long>(op->scratch_offset()));
    }
  }
}

void PrintTensors(const fb::Model& m) {
  const auto* tensors = m.tensors();
  std::printf("tensors (%u):\n", tensors ? tensors->size() : 0u);
  for (flatbuffers::uoffset_t i = 0; tensors && i < tensors->size(); ++i) {
    const fb::Tensor* t = tensors->Get(i);
    std::printf("  #%u %s %s\n", i, t->name() ? t->name()->c_str() : "",
                DescribeTensor(*t).c_str());
  }
}

// Memory figures, plus what the runtime itself says about this buffer.
void PrintMemory(const fb::Model& m, const AlignedBuffer& buf) {
  std::printf("arena: %llu bytes planned (lower bound %llu)\n",
              static_cast<unsigned long long>(m.arena_bytes()),
              static_cast<unsigned long long>(m.arena_lower_bound()));
  std::printf("weights: %u bytes\n", m.weights() ? m.weights()->size() : 0u);
  size_t required = 0;
  const Status s = RequiredArenaBytes(buf.data.get(), buf.bytes, &required);
  if (s == Status::kOk) {
    std::printf("runtime arena (plan + interpreter state): %zu bytes\n", required);
  } else {
    std::printf("runtime arena: the runtime rejects this model: %s\n", StatusName(s));
  }
  std::printf("kernel ISA (auto): %s\n", IsaName(DetectBestIsa()));
}

}  // namespace

int InspectCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--dot", "--memory-plot", "--target", "--target-build"};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  const std::string& path = args.positional[0];
  AlignedBuffer buf;
  std::string error;
  if (!ReadFileAligned(path, &buf, &error)) {
    std::fprintf(stderr, "edgefold inspect: %s\n", error.c_str());
    return kExitFailure;
  }
  flatbuffers::Verifier verifier(buf.data.get(), buf.bytes);
  if (!fb::VerifyModelBuffer(verifier)) {  // also checks the size and the identifier
    std::fprintf(stderr,
                 "edgefold inspect: %s: not a valid .efb file (identifier 'EFB1' "
                 "missing or the FlatBuffers verifier rejected it)\n",
                 path.c_str());
    return kExitFailure;
  }
  const fb::Model& m = *fb::GetModel(buf.data.get());
  std::printf("file: %s (%zu bytes)\n", path.c_str(), buf.bytes);
  std::printf("format_version: %u\n", m.format_version());
  std::printf("producer: %s\n", m.producer() ? m.producer()->c_str() : "");
  PrintGraphIo(m, "inputs", m.inputs());
  PrintGraphIo(m, "outputs", m.outputs());
  PrintOperators(m);
  PrintTensors(m);
  PrintMemory(m, buf);
  if (args.Has("--target")) {
    const TargetInfo* target = FindTarget(args.Get("--target", ""));
    TargetFootprint footprint;
    if (target == nullptr) {
      error = "unknown --target '" + args.Get("--target", "") + "' (" + TargetNames(true) + ")";
    } else if (MeasureTargetFootprint(
                   *target, args.Get("--target-build", ""),
                   std::vector<uint8_t>(buf.data.get(), buf.data.get() + buf.bytes), &footprint,
                   &error)) {
      PrintTargetFootprint(*target, footprint);
    }
    if (!error.empty()) {
      std::fprintf(stderr, "edgefold inspect: %s\n", error.c_str());
      return kExitFailure;
    }
  }
  return WritePictures(m, path, args) ? kExitOk : kExitFailure;
}

}  // namespace edgefold::tools
