#include "target_run.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "target_taps.h"

namespace edgefold::tools {
namespace {

constexpr TargetInfo kTargets[] = {
    {"aarch64", "build-aarch64", "aarch64-linux-gnu", "Release", nullptr},
    {"armv7", "build-armv7", "arm-linux-gnueabihf", "Release", nullptr},
    {"m4", "build-m4", "arm-none-eabi-cortex-m4", "MinSizeRel", "mps2-an386"},
    {"m7", "build-m7", "arm-none-eabi-cortex-m7", "MinSizeRel", "mps2-an500"},
    {"m55", "build-m55", "arm-none-eabi-cortex-m55", "MinSizeRel", "mps3-an547"},
};

// The directory holding the build this binary came from: <build>/bin/edgefold -> <build>/..
std::string HostBuildParent() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return ".";
  std::string path(self, static_cast<size_t>(n));
  for (int up = 0; up < 3; ++up) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    path.resize(slash == 0 ? 1 : slash);
  }
  return path;
}

bool Exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool WriteFile(const std::string& path, const void* data, size_t bytes, std::string* error) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f) return *error = path + ": cannot write", false;
  return true;
}

bool ReadFile(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// The command line that runs `runner` with `args` on `target`, in the current directory.
std::string Command(const TargetInfo& t, const std::string& runner, const std::string& args) {
  if (!t.bare_metal()) {  // as the toolchain files' CMAKE_CROSSCOMPILING_EMULATOR
    const bool a64 = std::strcmp(t.name, "aarch64") == 0;
    return std::string(a64 ? "qemu-aarch64 -L /usr/aarch64-linux-gnu"
                           : "qemu-arm -cpu cortex-a15 -L /usr/arm-linux-gnueabihf") +
           " " + Quote(runner) + " " + args;
  }
  return std::string("qemu-system-arm -M ") + t.machine +
         " -nographic -monitor none -serial none"
         " -semihosting-config enable=on,target=native -kernel " +
         Quote(runner) + " -append " + Quote(args);
}

struct ScratchDir {
  std::string path;
  ~ScratchDir() {
    if (path.empty()) return;
    for (const char* f : {"model.efb", "in.bin", "out.bin", "plan.bin", "taps.bin", "log.txt"})
      std::remove((path + "/" + f).c_str());
    rmdir(path.c_str());
  }
};

}  // namespace

std::string TargetNames(bool bare_metal_only) {
  std::string names;
  for (const TargetInfo& t : kTargets)
    if (!bare_metal_only || t.bare_metal())
      names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

const TargetInfo* FindTarget(const std::string& name) {
  for (const TargetInfo& t : kTargets)
    if (name == t.name) return &t;
  return nullptr;
}

std::string TargetBuildDir(const TargetInfo& t, const std::string& build_dir) {
  return build_dir.empty() ? HostBuildParent() + "/" + t.build_dir : build_dir;
}

bool FindRunner(const TargetInfo& t, const std::string& build_dir, std::string* runner,
                std::string* error) {
  const std::string dir = TargetBuildDir(t, build_dir);
  *runner = dir + "/bin/edgefold_validate" + (t.bare_metal() ? ".elf" : "");
  if (Exists(*runner)) {
    // Absolute: the program runs in a scratch directory.
    char* real = realpath(runner->c_str(), nullptr);
    if (real) *runner = real;
    std::free(real);
    return true;
  }
  *error = std::string("no validation program for --target ") + t.name + ": " + *runner +
           " is missing. Build it (from the source tree): cmake -S . -B " + t.build_dir +
           " -G Ninja -DCMAKE_TOOLCHAIN_FILE=targets/" + t.toolchain +
           ".cmake -DCMAKE_BUILD_TYPE=" + t.build_type +
           " -DEDGEFOLD_BUILD_COMPILER=OFF -DEDGEFOLD_BUILD_TESTS=OFF && cmake --build " +
           t.build_dir + " --target edgefold_validate; or pass --target-build DIR";
  return false;
}

bool RunOnTarget(const TargetInfo& t, const std::string& runner, const std::vector<uint8_t>& model,
                 const std::vector<float>& inputs, bool per_layer, TargetResult* result,
                 std::string* error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/edgefold_validate.XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  ScratchDir dir;
  if (!mkdtemp(buf.data())) return *error = templ + ": cannot create a scratch directory", false;
  dir.path = buf.data();
  if (!WriteFile(dir.path + "/model.efb", model.data(), model.size(), error) ||
      !WriteFile(dir.path + "/in.bin", inputs.data(), inputs.size() * sizeof(float), error))
    return false;
  if (per_layer) {
    const std::vector<uint8_t> plan = TapsPlan(model.data());
    if (!WriteFile(dir.path + "/plan.bin", plan.data(), plan.size(), error)) return false;
  }
  const std::string args =
      std::string("model.efb in.bin out.bin") + (per_layer ? " plan.bin taps.bin" : "");
  const std::string cmd = "cd " + Quote(dir.path) + " && timeout 900 " + Command(t, runner, args) +
                          " > log.txt 2>&1 < /dev/null";
  const int rc = std::system(cmd.c_str());
  std::vector<uint8_t> log;
  ReadFile(dir.path + "/log.txt", &log);
  const std::string text(log.begin(), log.end());
  const size_t at = text.find("edgefold_validate: ok");
  if (rc != 0 || at == std::string::npos) {
    const size_t err = text.find("edgefold_validate: error: ");
    *error =
        std::string("--target ") + t.name + ": " + runner + " failed (exit status " +
        std::to_string(rc) + ")" +
        (err != std::string::npos ? ": " + text.substr(err + 26, text.find('\n', err) - err - 26)
         : text.empty()           ? ""
                                  : ": " + text.substr(0, 400));
    return false;
  }
  result->summary = text.substr(at, text.find('\n', at) - at);
  std::vector<uint8_t> out;
  if (!ReadFile(dir.path + "/out.bin", &out) || out.size() % sizeof(float) != 0)
    return *error = std::string("--target ") + t.name + ": no outputs written", false;
  result->outputs.resize(out.size() / sizeof(float));
  std::memcpy(result->outputs.data(), out.data(), out.size());
  if (per_layer && !ReadFile(dir.path + "/taps.bin", &result->taps))
    return *error = std::string("--target ") + t.name + ": no layer taps written", false;
  return true;
}

long SummaryField(const std::string& summary, const std::string& key) {
  const size_t at = summary.find(" " + key + "=");
  if (at == std::string::npos) return -1;
  return std::strtol(summary.c_str() + at + key.size() + 2, nullptr, 10);
}

}  // namespace edgefold::tools
