// Aggregator (aggregate.h): checks, deduplicates and combines device records per round.
#include "aggregate.h"

namespace edgefold::fleet {

uint64_t CombineStatistics(const std::vector<std::pair<uint64_t, std::vector<LayerStats>>>& parts,
                           std::vector<LayerStats>* out) {
  uint64_t total = 0;
  bool affine = !parts.empty();
  for (const auto& [n, layers] : parts) {
    total += n;
    for (const LayerStats& l : layers) affine = affine && !l.gamma.empty();
  }
  if (total == 0) return 0;
  const size_t num_layers = parts[0].second.size();
  std::vector<LayerStats> result(num_layers);
  for (size_t l = 0; l < num_layers; ++l) {
    const size_t c = parts[0].second[l].mean.size();
    LayerStats& r = result[l];
    r.mean.assign(c, 0.0);
    r.var.assign(c, 0.0);
    if (affine) r.gamma.assign(c, 0.0), r.beta.assign(c, 0.0);
    for (const auto& [n, layers] : parts) {
      const double w = double(n) / double(total);
      for (size_t i = 0; i < c; ++i) {
        r.mean[i] += w * layers[l].mean[i];
        if (affine) {
          r.gamma[i] += w * layers[l].gamma[i];
          r.beta[i] += w * layers[l].beta[i];
        }
      }
    }
    for (const auto& [n, layers] : parts) {
      const double w = double(n) / double(total);
      for (size_t i = 0; i < c; ++i) {
        const double d = layers[l].mean[i] - r.mean[i];
        r.var[i] += w * (layers[l].var[i] + d * d);
      }
    }
  }
  *out = std::move(result);
  return total;
}

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kAccepted:
      return "accepted";
    case Outcome::kDuplicate:
      return "duplicate";
    case Outcome::kRejected:
      return "rejected";
  }
  return "?";
}

Aggregator::Aggregator(uint64_t model_hash, std::vector<size_t> channels, float max_variance)
    : model_hash_(model_hash), channels_(std::move(channels)), max_variance_(max_variance) {}

namespace {
void AppendLog(void* user, const char* message) {
  static_cast<std::string*>(user)->append(message);
}
}  // namespace

Outcome Aggregator::Add(uint32_t device, const uint8_t* bytes, size_t n, std::string* why) {
  UpdateExpectation e;
  e.model_hash = model_hash_;
  e.channels = channels_.data();
  e.layers = channels_.size();
  e.max_variance = max_variance_;
  UpdateRecordHeader h;
  std::string log;
  auto reject = [&](const std::string& reason) {
    ++rejected_;
    if (why) *why = reason;
    return Outcome::kRejected;
  };
  if (CheckUpdateRecord(bytes, n, e, &h, AppendLog, &log) != Status::kOk) return reject(log);
  if (h.origin != device)
    return reject("update record: origin " + std::to_string(h.origin) + ", sent by device " +
                  std::to_string(device));
  if (h.samples == 0) return reject("update record: samples 0");
  if (seen_.count({device, h.round})) {
    ++duplicates_;
    if (why)
      *why = "duplicate of (device " + std::to_string(device) + ", round " +
             std::to_string(h.round) + ")";
    return Outcome::kDuplicate;
  }
  if (any_closed_ && h.round <= last_closed_)
    return reject("update record: round " + std::to_string(h.round) + " is closed (last " +
                  std::to_string(last_closed_) + ")");
  auto& round = rounds_[h.round];
  Update u;
  u.samples = h.samples;
  u.record.assign(bytes, bytes + n);
  u.layers.resize(channels_.size());
  for (size_t l = 0; l < channels_.size(); ++l) {
    const size_t c = channels_[l];
    std::vector<float> m(c), v(c), g(c), b(c);
    (void)DecodeUpdateLayer(bytes, n, l, m.data(), v.data(), g.data(), b.data());
    u.layers[l].mean.assign(m.begin(), m.end());
    u.layers[l].var.assign(v.begin(), v.end());
    if (h.affine) {
      u.layers[l].gamma.assign(g.begin(), g.end());
      u.layers[l].beta.assign(b.begin(), b.end());
    }
  }
  round.emplace(device, std::move(u));
  seen_.insert({device, h.round});
  ++accepted_;
  return Outcome::kAccepted;
}

size_t Aggregator::Count(uint32_t round) const {
  auto it = rounds_.find(round);
  return it == rounds_.end() ? 0 : it->second.size();
}

bool Aggregator::Close(uint32_t round, std::vector<uint8_t>* record) {
  auto it = rounds_.find(round);
  if (it == rounds_.end() || it->second.empty()) return false;
  std::vector<std::pair<uint64_t, std::vector<LayerStats>>> parts;
  for (auto& [device, u] : it->second) parts.emplace_back(u.samples, u.layers);
  if (global_samples_ > 0) parts.emplace_back(global_samples_, global_);
  std::vector<LayerStats> combined;
  const uint64_t total = CombineStatistics(parts, &combined);
  std::vector<std::vector<float>> arrays;
  std::vector<BnLayerStats> views;
  const bool affine = !combined.empty() && !combined[0].gamma.empty();
  arrays.reserve(4 * combined.size());
  for (const LayerStats& l : combined) {
    arrays.emplace_back(l.mean.begin(), l.mean.end());
    arrays.emplace_back(l.var.begin(), l.var.end());
    arrays.emplace_back(l.gamma.begin(), l.gamma.end());
    arrays.emplace_back(l.beta.begin(), l.beta.end());
    const size_t a = arrays.size() - 4;
    views.push_back({l.mean.size(), arrays[a].data(), arrays[a + 1].data(),
                     affine ? arrays[a + 2].data() : nullptr,
                     affine ? arrays[a + 3].data() : nullptr});
  }
  UpdateRecordHeader h;
  h.model_hash = model_hash_;
  h.round = round;
  h.samples = uint32_t(total > 0xffffffffu ? 0xffffffffu : total);
  h.origin = 0;
  h.layers = uint16_t(views.size());
  h.affine = affine;
  record->assign(UpdateRecordBytes(channels_.data(), channels_.size(), h.encoding, affine), 0);
  if (WriteUpdateRecord(h, views.data(), record->data(), record->size(), nullptr) != Status::kOk)
    return false;
  rounds_.erase(round);
  global_ = std::move(combined);
  global_samples_ = total;
  last_closed_ = round;
  any_closed_ = true;
  return true;
}

}  // namespace edgefold::fleet
