// Running a .efb on an emulated target through the generic validation program
// (examples/validate/validate_main.cc, built by that target's cross build): aarch64 and armv7
// under qemu-user with the sysroot, Cortex-M4/M7/M55 under qemu-system-arm (mps2-an386 /
// mps2-an500 / mps3-an547) reading and writing files over semihosting.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::tools {

struct TargetInfo {
  const char* name;        // "aarch64", "armv7", "m4", "m7", "m55"
  const char* build_dir;   // the cross build's default directory name ("build-m4")
  const char* toolchain;   // targets/<toolchain>.cmake
  const char* build_type;  // the build type the cross stage uses
  const char* machine;     // qemu-system-arm -M <machine> for a bare-metal target, else nullptr
  bool bare_metal() const { return machine != nullptr; }
};

// The emulated targets' names, "aarch64, armv7, m4, m7, m55" (bare_metal_only: "m4, m7, m55"),
// for usage lines and errors.
std::string TargetNames(bool bare_metal_only);

// nullptr for a name that is not an emulated target.
const TargetInfo* FindTarget(const std::string& name);

// `build_dir`, or when empty build-<target> next to the host build this edgefold binary
// belongs to.
std::string TargetBuildDir(const TargetInfo& target, const std::string& build_dir);

// The validation program of `target` in `build_dir` (empty: build-<target> next to the host
// build this edgefold binary belongs to). On a missing program `error` says what to build.
bool FindRunner(const TargetInfo& target, const std::string& build_dir, std::string* runner,
                std::string* error);

struct TargetResult {
  std::vector<float> outputs;  // every run's outputs, run after run, outputs in graph order
  std::vector<uint8_t> taps;   // TAPS.bin (validate_main.cc) when asked for
  std::string summary;         // the program's "edgefold_validate: ok ..." line
};

// Runs `model` (the .efb bytes, unchanged) on `inputs` (run after run, inputs in graph order).
bool RunOnTarget(const TargetInfo& target, const std::string& runner,
                 const std::vector<uint8_t>& model, const std::vector<float>& inputs,
                 bool per_layer, TargetResult* result, std::string* error);

// The value of `key=` in the summary line, or -1.
long SummaryField(const std::string& summary, const std::string& key);

}  // namespace edgefold::tools
