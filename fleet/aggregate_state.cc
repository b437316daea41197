// Aggregator::Save / Load (aggregate.h): the state as files in a directory, written to a
// temporary name and renamed, so that a crash leaves the previous state or the new one.
//   state.txt   counters, the last closed round, the closed rounds' combined statistics
//               (%.17g: doubles round-trip exactly), the (device, round) pairs counted
//   open/<round>_<device>.bin   each open round's records as received
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "aggregate.h"

namespace edgefold::fleet {
namespace fs = std::filesystem;

bool Aggregator::Save(const std::string& dir, std::string* error) const {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "open", ec);
  std::ostringstream o;
  o.precision(17);
  o << "edgefold-aggregator 1\n"
    << accepted_ << " " << duplicates_ << " " << rejected_ << " " << last_closed_ << " "
    << (any_closed_ ? 1 : 0) << " " << global_samples_ << " " << global_.size() << "\n";
  for (const LayerStats& l : global_) {
    o << l.mean.size() << " " << (l.gamma.empty() ? 0 : 1) << "\n";
    for (const std::vector<double>* a : {&l.mean, &l.var, &l.gamma, &l.beta}) {
      for (double v : *a) o << v << " ";
      o << "\n";
    }
  }
  o << seen_.size() << "\n";
  for (const auto& [device, round] : seen_) o << device << " " << round << "\n";
  // Open rounds first (a state naming records that are not there yet is never written).
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "open", ec))
    fs::remove(entry.path(), ec);
  for (const auto& [round, devices] : rounds_)
    for (const auto& [device, u] : devices) {
      const fs::path p =
          fs::path(dir) / "open" / (std::to_string(round) + "_" + std::to_string(device) + ".bin");
      std::ofstream(p, std::ios::binary)
          .write(reinterpret_cast<const char*>(u.record.data()), std::streamsize(u.record.size()));
    }
  const fs::path tmp = fs::path(dir) / "state.txt.tmp", final_path = fs::path(dir) / "state.txt";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << o.str();
    f.flush();
    if (!f) {
      *error = tmp.string() + ": cannot write";
      return false;
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) *error = final_path.string() + ": " + ec.message();
  return !ec;
}

bool Aggregator::Load(const std::string& dir, std::string* error) {
  std::ifstream f(fs::path(dir) / "state.txt");
  if (!f) return true;  // nothing saved yet
  std::string magic;
  int version = 0, any = 0;
  size_t layers = 0, seen = 0;
  f >> magic >> version >> accepted_ >> duplicates_ >> rejected_ >> last_closed_ >> any >>
      global_samples_ >> layers;
  any_closed_ = any != 0;
  global_.assign(layers, LayerStats());
  for (LayerStats& l : global_) {
    size_t c = 0;
    int affine = 0;
    f >> c >> affine;
    for (std::vector<double>* a : {&l.mean, &l.var, &l.gamma, &l.beta}) {
      const bool present = a == &l.mean || a == &l.var || affine;
      a->assign(present ? c : 0, 0.0);
      for (double& v : *a) f >> v;
    }
  }
  f >> seen;
  for (size_t i = 0; i < seen && f; ++i) {
    uint32_t device = 0, round = 0;
    f >> device >> round;
    seen_.insert({device, round});
  }
  if (!f || magic != "edgefold-aggregator" || version != 1) {
    *error = (fs::path(dir) / "state.txt").string() + ": not a saved aggregator state";
    return false;
  }
  // The open rounds' records, checked again as they arrive (they were accepted once).
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "open", ec)) {
    const std::string name = entry.path().stem().string();
    const size_t cut = name.find('_');
    if (cut == std::string::npos) continue;
    const uint32_t device = uint32_t(std::stoul(name.substr(cut + 1)));
    std::ifstream r(entry.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(r)),
                                     std::istreambuf_iterator<char>());
    UpdateRecordHeader h;
    UpdateExpectation e;
    e.model_hash = model_hash_;
    e.channels = channels_.data();
    e.layers = channels_.size();
    e.max_variance = max_variance_;
    if (CheckUpdateRecord(bytes.data(), bytes.size(), e, &h) != Status::kOk) continue;
    seen_.erase({device, h.round});
    const size_t accepted = accepted_;
    std::string why;
    Add(device, bytes.data(), bytes.size(), &why);
    accepted_ = accepted;  // counted when it first arrived
  }
  return true;
}

}  // namespace edgefold::fleet
