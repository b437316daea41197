// LoadDeviceState / SaveDeviceState (device_state.h).
#include "device_state.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace edgefold::fleet {
namespace fs = std::filesystem;
namespace {

bool WriteAtomically(const fs::path& path, const void* data, size_t bytes, std::string* error) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(static_cast<const char*>(data), std::streamsize(bytes));
    if (!f.flush()) {
      *error = "device state: cannot write " + tmp.string();
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) *error = "device state: cannot rename " + tmp.string() + ": " + ec.message();
  return !ec;
}

}  // namespace

bool LoadDeviceState(const std::string& dir, DeviceState* out, std::string* error) {
  *out = DeviceState();
  const fs::path text = fs::path(dir) / "state.txt";
  std::ifstream f(text);
  if (!f) return true;  // no state yet
  std::string magic, sent, applied;
  int version = 0;
  if (!(f >> magic >> version >> sent >> out->sent >> applied >> out->applied) ||
      magic != "edgefold-device-state" || version != 1 || sent != "sent" || applied != "applied") {
    *error = "device state: " + text.string() +
             ": expected 'edgefold-device-state 1 sent <S> applied <A>'";
    return false;
  }
  if (out->applied == 0) return true;
  const fs::path bin = fs::path(dir) / "global.bin";
  std::ifstream g(bin, std::ios::binary);
  out->global.assign(std::istreambuf_iterator<char>(g), std::istreambuf_iterator<char>());
  if (out->global.empty()) {
    *error = "device state: " + bin.string() + ": missing or empty (applied " +
             std::to_string(out->applied) + ")";
    return false;
  }
  return true;
}

bool SaveDeviceState(const std::string& dir, const DeviceState& state, bool with_global,
                     std::string* error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (with_global && !WriteAtomically(fs::path(dir) / "global.bin", state.global.data(),
                                      state.global.size(), error))
    return false;
  std::ostringstream o;
  o << "edgefold-device-state 1 sent " << state.sent << " applied " << state.applied << "\n";
  const std::string s = o.str();
  return WriteAtomically(fs::path(dir) / "state.txt", s.data(), s.size(), error);
}

}  // namespace edgefold::fleet
