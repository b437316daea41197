// edgefold inspect MODEL.efb
#include <cstdio>
#include <string>

#include "cli_args.h"
#include "commands.h"
#include "edgefold/interpreter.h"
#include "efb_describe.h"
#include "file_io.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold inspect MODEL.efb\n"
    "\n"
    "Prints the format version, producer, graph inputs/outputs, every operator (type,\n"
    "fused activation, name, input and output shapes), every tensor (shape, dtype, arena or\n"
    "weight offset, bytes), the planned arena and its lower bound, weight bytes, and the\n"
    "kernel ISA the runtime would choose on this machine.\n";

void PrintGraphIo(const fb::Model& m, const char* label, const flatbuffers::Vector<int32_t>* v) {
  std::printf("%s:\n", label);
  for (flatbuffers::uoffset_t i = 0; v && i < v->size(); ++i) {
    std::printf("  %s\n", DescribeTensorRef(m, v->Get(i)).c_str());
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
    std::fprintf(stderr, "edgefold inspect: %s: not a valid .efb file (identifier 'EFB1' "
                 "missing or the FlatBuffers verifier rejected it)\n", path.c_str());
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
  return kExitOk;
}

}  // namespace edgefold::tools
