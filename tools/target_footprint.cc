#include "target_footprint.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "edgefold/interpreter.h"
#include "edgefold/model_generated.h"

namespace edgefold::tools {
namespace {

bool ReadText(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// Output sections placed in flash; .data has its load image there too.
bool InFlash(const std::string& s) {
  static const char* const kFlash[] = {".isr_vector", ".text",       ".rodata",
                                       ".ARM.extab",  ".ARM.exidx",  ".preinit_array",
                                       ".init_array", ".fini_array", ".data"};
  return std::find_if(std::begin(kFlash), std::end(kFlash),
                      [&](const char* f) { return s == f; }) != std::end(kFlash);
}

long* Owner(MapSizes* m, const std::string& section, const std::string& object) {
  if (section.find("g_model") != std::string::npos || section.find("g_arena") != std::string::npos)
    return &m->buffers;
  if (object.find("libedgefold_runtime.a") != std::string::npos ||
      (object.find("edgefold_validate_ops.dir") != std::string::npos &&
       object.find("io_int8") == std::string::npos))
    return &m->runtime;
  if (object.find("libedgefold_kernels.a") != std::string::npos) return &m->kernels;
  if (object.find("edgefold_validate_trimmed.dir") != std::string::npos ||
      object.find("io_int8") != std::string::npos)
    return &m->app;
  return &m->libc;
}

std::string Shell(const std::string& cmd, int* rc) {
  std::string out;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return *rc = -1, out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *rc = pclose(p);
  return out;
}

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

long Total(const MapSizes& m) { return m.runtime + m.kernels + m.app + m.libc; }

}  // namespace

bool ParseLinkMap(const std::string& text, MapSizes* flash, MapSizes* ram, std::string* error) {
  const size_t start = text.find("Linker script and memory map");
  if (start == std::string::npos) return *error = "not a GNU ld link map", false;
  std::istringstream in(text.substr(start));
  const std::regex entry(R"(^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$)");
  const std::regex out_header(R"(^(\.[\w.]+)(\s|$))");
  const std::regex in_header(R"(^ (\.[^\s]+)\s*(.*)$)");
  std::string line, out_sec, pending;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '.' && std::regex_search(line, m, out_header)) {
      out_sec = m[1];
      continue;
    }
    if (std::regex_match(line, m, in_header)) {
      pending = m[1];
      const std::string rest = m[2];
      line = rest.empty() ? "" : "                " + rest;
    }
    if (!pending.empty() && !out_sec.empty() && std::regex_match(line, m, entry)) {
      const long bytes = std::strtol(m[2].str().c_str(), nullptr, 16);
      const std::string object = m[3];
      if (InFlash(out_sec)) *Owner(flash, pending, object) += bytes;
      if (out_sec == ".data" || out_sec == ".bss") *Owner(ram, pending, object) += bytes;
      pending.clear();
    }
  }
  return true;
}

namespace {

// The objects list of the trimmed firmware in `dir`; false (with what to build) without one.
bool ReadTrimmedBuild(const TargetInfo& target, const std::string& dir, std::string* objects_list,
                      std::string* error) {
  if (ReadText(dir + "/bin/edgefold_validate_ops.txt", objects_list) &&
      access((dir + "/build.ninja").c_str(), R_OK) == 0)
    return true;
  *error = std::string("--target ") + target.name + ": " + dir +
           " holds no Ninja build of the trimmed validation firmware. Build it (from the source "
           "tree): cmake -S . -B " +
           target.build_dir + " -G Ninja -DCMAKE_TOOLCHAIN_FILE=targets/" + target.toolchain +
           ".cmake -DCMAKE_BUILD_TYPE=" + target.build_type +
           " -DEDGEFOLD_BUILD_COMPILER=OFF -DEDGEFOLD_BUILD_TESTS=OFF && cmake --build " +
           target.build_dir +
           " --target edgefold_validate_trimmed edgefold_validate_ops; or pass --target-build DIR";
  return false;
}

// The line of `objects_list` ending in `suffix`, or "".
std::string ObjectEndingIn(const std::string& objects_list, const std::string& suffix) {
  std::istringstream lines(objects_list);
  std::string obj, found;
  while (std::getline(lines, obj))
    if (obj.size() >= suffix.size() &&
        obj.compare(obj.size() - suffix.size(), suffix.size(), suffix) == 0)
      found = obj;
  return found;
}

// The objects the model needs on the link line (quoted, each after a space): one registration
// object per op kind (their names into `op_kinds`), io_int8's for int8 graph inputs or outputs.
bool ModelObjects(const fb::Model& m, const std::string& objects_list, const std::string& dir,
                  std::vector<std::string>* op_kinds, std::string* extra, std::string* error) {
  const std::string list_path = dir + "/bin/edgefold_validate_ops.txt";
  for (uint32_t i = 0; m.operators() && i < m.operators()->size(); ++i) {
    const std::string kind = fb::EnumNameOpType(m.operators()->Get(i)->type());
    if (std::find(op_kinds->begin(), op_kinds->end(), kind) != op_kinds->end()) continue;
    op_kinds->push_back(kind);
    const std::string found = ObjectEndingIn(objects_list, "/op_" + kind + ".cc.obj");
    if (found.empty())
      return *error = "op '" + kind + "': no registration object in " + list_path +
                      " (a build older than the model's ops?)",
             false;
    *extra += " " + Quote(found);
  }
  bool int8_io = false;
  for (const auto* list : {m.inputs(), m.outputs()})
    for (uint32_t i = 0; list && i < list->size(); ++i)
      int8_io |= m.tensors()->Get(static_cast<uint32_t>(list->Get(i)))->dtype() == fb::DType::Int8;
  if (!int8_io) return true;
  const std::string io = ObjectEndingIn(objects_list, "/io_int8.cc.obj");
  if (io.empty()) return *error = "no io_int8 object in " + list_path, false;
  *extra += " " + Quote(io);
  return true;
}

// The trimmed firmware's own link line in `dir`, with `extra` objects added and the outputs
// moved to `elf` and `elf`.map.
bool TrimmedLinkLine(const std::string& dir, const std::string& extra, const std::string& elf,
                     std::string* link, std::string* error) {
  int rc = 0;
  const std::string commands =
      Shell("ninja -C " + Quote(dir) + " -t commands bin/edgefold_validate_trimmed.elf 2>&1", &rc);
  const size_t last = commands.rfind('\n', commands.size() >= 2 ? commands.size() - 2 : 0);
  *link = commands.substr(last == std::string::npos ? 0 : last + 1);
  if (!link->empty() && link->back() == '\n') link->pop_back();
  const std::string out_flag = " -o bin/edgefold_validate_trimmed.elf ";
  const size_t at_o = link->find(out_flag), at_map = link->find("-Wl,-Map=");
  if (rc != 0 || at_o == std::string::npos || at_map == std::string::npos)
    return *error = "ninja -C " + dir + " -t commands gave no link line of " +
                    "edgefold_validate_trimmed: " + commands.substr(0, 300),
           false;
  link->replace(at_o, out_flag.size(), extra + " -o " + Quote(elf) + " ");
  const size_t map_at = link->find("-Wl,-Map="), map_end = link->find(' ', map_at);
  link->replace(map_at, map_end - map_at, "-Wl,-Map=" + Quote(elf + ".map"));
  return true;
}

// Zeros for every graph input of `m`, one run.
std::vector<float> ZeroInputs(const fb::Model& m) {
  size_t elems = 0;
  for (uint32_t i = 0; m.inputs() && i < m.inputs()->size(); ++i) {
    const fb::Tensor* t = m.tensors()->Get(static_cast<uint32_t>(m.inputs()->Get(i)));
    size_t n = 1;
    if (t->shape())
      for (int32_t d : *t->shape()) n *= static_cast<size_t>(d);
    elems += n;
  }
  return std::vector<float>(elems, 0.0f);
}

// Links `link` in `dir` into `elf`, reads its map into `out`, and runs it once on zeros under
// QEMU: the arena the runtime asks for on the target, and the stack it touches.
bool LinkAndRun(const TargetInfo& target, const std::string& dir, const std::string& link,
                const std::string& elf, const std::vector<uint8_t>& model, TargetFootprint* out,
                TargetResult* run, std::string* error) {
  int rc = 0;
  const std::string log = Shell("cd " + Quote(dir) + " && " + link + " 2>&1", &rc);
  std::string map_text;
  if (rc != 0 || !ReadText(elf + ".map", &map_text))
    return *error = "linking the trimmed firmware failed: " + log.substr(0, 600), false;
  return ParseLinkMap(map_text, &out->flash, &out->static_ram, error) &&
         RunOnTarget(target, elf, model, ZeroInputs(*fb::GetModel(model.data())), false, run,
                     error);
}

}  // namespace

bool MeasureTargetFootprint(const TargetInfo& target, const std::string& build_dir,
                            const std::vector<uint8_t>& model, TargetFootprint* out,
                            std::string* error) {
  if (!target.bare_metal())
    return *error = std::string("--target ") + target.name +
                    ": flash and RAM are measured for the bare-metal targets (" +
                    TargetNames(true) + ")",
           false;
  const std::string dir = TargetBuildDir(target, build_dir);
  std::string objects_list, extra, link;
  if (!ReadTrimmedBuild(target, dir, &objects_list, error) ||
      !ModelObjects(*fb::GetModel(model.data()), objects_list, dir, &out->op_kinds, &extra, error))
    return false;
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/edgefold_inspect.XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return *error = templ + ": cannot create a scratch directory", false;
  const std::string scratch = buf.data(), elf = scratch + "/firmware.elf";
  TargetResult run;
  const bool ok = TrimmedLinkLine(dir, extra, elf, &link, error) &&
                  LinkAndRun(target, dir, link, elf, model, out, &run, error);
  for (const char* f : {"/firmware.elf", "/firmware.elf.map"}) std::remove((scratch + f).c_str());
  rmdir(scratch.c_str());
  if (!ok) return false;
  out->model_bytes = static_cast<long>(model.size());
  out->arena_bytes = SummaryField(run.summary, "arena_bytes");
  out->stack_bytes = SummaryField(run.summary, "stack_bytes");
  const size_t k = run.summary.find(" kernels=");
  if (k != std::string::npos)
    out->kernels = run.summary.substr(k + 9, run.summary.find(' ', k + 9) - k - 9);
  return true;
}

void PrintTargetFootprint(const TargetInfo& target, const TargetFootprint& f) {
  std::printf("target %s: the validation firmware linked with this model's %zu op kind(s):",
              target.name, f.op_kinds.size());
  for (const std::string& k : f.op_kinds) std::printf(" %s", k.c_str());
  std::printf(" (%s kernels)\n", f.kernels.c_str());
  const long code = f.flash.runtime + f.flash.kernels;
  std::printf("  flash: %ld bytes = model %ld + runtime %ld + kernels %ld + app %ld + libc %ld\n",
              f.model_bytes + Total(f.flash), f.model_bytes, f.flash.runtime, f.flash.kernels,
              f.flash.app, f.flash.libc);
  std::printf("         (runtime + kernels: %ld bytes; app: the validation program's file I/O)\n",
              code);
  std::printf(
      "  RAM:   %ld bytes = arena %ld (planned tensors + interpreter state) + stack %ld "
      "(measured high-water mark) + static data %ld (runtime %ld, kernels %ld, app %ld, libc "
      "%ld)\n",
      f.arena_bytes + std::max(f.stack_bytes, 0L) + Total(f.static_ram), f.arena_bytes,
      f.stack_bytes, Total(f.static_ram), f.static_ram.runtime, f.static_ram.kernels,
      f.static_ram.app, f.static_ram.libc);
}

}  // namespace edgefold::tools
