// edgefold: compile ONNX models to .efb, run, inspect and benchmark them (the CLI's dispatch).
#include "cli_main.h"

#include <cstdio>
#include <cstring>

#include "cli_args.h"
#include "commands.h"

namespace edgefold::cli {
namespace {

struct Command {
  const char* name;
  int (*fn)(int, char**);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"compile", edgefold::tools::CompileCommand, "ONNX model -> checked, BN-folded .efb"},
    {"run", edgefold::tools::RunCommand, "run a .efb model on .npy inputs, write .npy outputs"},
    {"inspect", edgefold::tools::InspectCommand, "print a .efb model's ops, tensors and memory"},
    {"bench", edgefold::tools::BenchCommand, "time a .efb model on random input"},
    {"export-c", edgefold::tools::ExportCCommand, "write a .efb as a C++ header for firmware"},
    {"train", edgefold::tools::TrainCommand,
     "fine-tune BN (and more) on .npy data, on-device path"},
    {"diff", edgefold::tools::DiffCommand, "compare a .efb with its ONNX model layer by layer"},
    {"validate", edgefold::tools::ValidateCommand,
     "run a .efb on a target (host, QEMU) and compare with the host run"},
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out, "usage: edgefold <command> [options]\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-8s %s\n", c.name, c.summary);
  std::fprintf(out, "\nRun 'edgefold <command> --help' for a command's options.\n");
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return edgefold::tools::kExitUsage;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    PrintUsage(stdout);
    return edgefold::tools::kExitOk;
  }
  for (const Command& c : kCommands) {
    if (!std::strcmp(argv[1], c.name)) return c.fn(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "edgefold: unknown command '%s'\n\n", argv[1]);
  PrintUsage(stderr);
  return edgefold::tools::kExitUsage;
}

}  // namespace edgefold::cli
