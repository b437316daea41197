// edgefold export-c MODEL.efb -o model_data.h [--name NAME]
#include <algorithm>
#include <cstdio>
#include <string>

#include "cli_args.h"
#include "commands.h"
#include "edgefold/interpreter.h"
#include "edgefold/model_generated.h"
#include "edgefold/trainer.h"
#include "export_c.h"
#include "file_io.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold export-c MODEL.efb -o model_data.h [--name NAME]\n"
    "\n"
    "Writes the model as a C++ header for firmware: a 64-byte aligned\n"
    "`static const unsigned char NAME_model[]` (kept in flash, read in place), NAME_MODEL_BYTES,\n"
    "NAME_PLANNED_ARENA_BYTES (the compiler's activation plan), NAME_ARENA_BYTES (this host's\n"
    "RequiredArenaBytes rounded up to 64: an upper bound for 32-bit targets) and\n"
    "NAME_REGISTER_OPS(resolver), which registers exactly the model's operators on an\n"
    "edgefold::OpResolver so the firmware links no other op.\n"
    "\n"
    "options:\n"
    "  -o, --output PATH   header to write (required)\n"
    "  --name NAME         C identifier prefix (default: the file name without extension)\n";

std::string DefaultName(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  base = base.substr(0, base.find('.'));
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return base;
}

// Fills planned arena bytes and the distinct op kinds of an already verified model.
void DescribeModel(const uint8_t* bytes, ExportCInfo* info) {
  const fb::Model* m = fb::GetModel(bytes);
  info->planned_arena_bytes = m->arena_bytes();
  for (flatbuffers::uoffset_t i = 0; m->operators() && i < m->operators()->size(); ++i) {
    const std::string kind = fb::EnumNameOpType(m->operators()->Get(i)->type());
    if (std::find(info->op_kinds.begin(), info->op_kinds.end(), kind) == info->op_kinds.end())
      info->op_kinds.push_back(kind);
  }
}

}  // namespace

int ExportCCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--output", "--name"};
  spec.aliases = {{"-o", "--output"}};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  if (!args.Has("--output")) {
    std::fprintf(stderr, "edgefold export-c: -o/--output is required\n\n%s", kUsage);
    return kExitUsage;
  }
  const std::string path = args.positional[0], out_path = args.Get("--output", "");
  ExportCInfo info;
  info.name = args.Get("--name", DefaultName(path));
  if (!IsCIdentifier(info.name)) {
    std::fprintf(stderr, "edgefold export-c: --name '%s' is not a C identifier\n",
                 info.name.c_str());
    return kExitUsage;
  }
  AlignedBuffer model;
  std::string error;
  if (!ReadFileAligned(path, &model, &error)) {
    std::fprintf(stderr, "edgefold export-c: %s\n", error.c_str());
    return kExitFailure;
  }
  const Status st = RequiredArenaBytes(model.data.get(), model.bytes, &info.host_arena_bytes);
  if (st != Status::kOk) {  // also runs the verifier and every op's Prepare checks
    std::fprintf(stderr, "edgefold export-c: %s: not a valid model (%s)\n", path.c_str(),
                 StatusName(st));
    return kExitFailure;
  }
  DescribeModel(model.data.get(), &info);
  // A model compiled with --train also gets its training arena (absent: not trainable).
  const bool trainable = fb::GetModel(model.data.get())->training() != nullptr;
  if (!trainable || RequiredTrainingArenaBytes(model.data.get(), model.bytes, TrainOptions(),
                                               &info.host_train_arena_bytes) != Status::kOk)
    info.host_train_arena_bytes = 0;
  const std::string text = ExportC(model.data.get(), model.bytes, info);
  std::FILE* f = std::fopen(out_path.c_str(), "wb");
  const bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr && std::fclose(f) != 0) return kExitFailure;
  if (!ok) {
    std::fprintf(stderr, "edgefold export-c: cannot write '%s'\n", out_path.c_str());
    return kExitFailure;
  }
  std::printf("wrote %s: %s_model (%zu bytes), arena %zu bytes (plan %llu), ops:", out_path.c_str(),
              info.name.c_str(), model.bytes, info.host_arena_bytes,
              static_cast<unsigned long long>(info.planned_arena_bytes));
  for (const std::string& op : info.op_kinds) std::printf(" %s", op.c_str());
  std::printf("\n");
  return kExitOk;
}

}  // namespace edgefold::tools
