// The fleet's aggregation of BatchNorm statistics (host side).
//
// Per round, each device d sends n_d samples' mean μ_d and variance σ²_d per channel. The
// fleet's statistics are those of all the samples together:
//   N = Σ n_d,   μ = Σ n_d·μ_d / N,   σ² = Σ n_d·(σ²_d + (μ_d − μ)²) / N
// (within-device variance plus the spread of the device means: exact for biased variances,
// the law of total variance). γ and β, when every record has them, are sample-weighted means.
//
// Robust and idempotent: a record is refused (and counted, with the reason kept) when it fails
// CheckUpdateRecord (wrong model hash, layer count or channels, NaN, variance < 0 or absurd,
// size, CRC), names another device than the one it came from, has no samples, or is for a
// round already closed; a second record for the same (device, round) is a duplicate and is not
// counted again.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "edgefold/update_record.h"

namespace edgefold::fleet {

struct LayerStats {
  std::vector<double> mean, var, gamma, beta;  // gamma/beta empty when absent
};

// Combines (samples, layers) pairs by the formulas above; `out` gets one entry per layer.
// Returns the total samples (0: nothing to combine, out untouched).
uint64_t CombineStatistics(const std::vector<std::pair<uint64_t, std::vector<LayerStats>>>& parts,
                           std::vector<LayerStats>* out);

enum class Outcome { kAccepted, kDuplicate, kRejected };
const char* OutcomeName(Outcome o);

class Aggregator {
 public:
  Aggregator(uint64_t model_hash, std::vector<size_t> channels, float max_variance = 1e8f);

  // A record received from `device` (the device the broker authenticated: its topic).
  // *why gets the reason of a refusal.
  Outcome Add(uint32_t device, const uint8_t* bytes, size_t n, std::string* why);

  // How many distinct devices have an accepted record for `round`.
  size_t Count(uint32_t round) const;
  // Closes `round` (later records for it are refused as late) and writes the fleet's statistics
  // as a record (origin 0, fp32, γ/β when all had them): those of every sample of every round
  // closed so far, this one included (a device sends only its new samples each round). False
  // when no record was accepted for the round.
  bool Close(uint32_t round, std::vector<uint8_t>* record);
  uint64_t global_samples() const { return global_samples_; }

  // The aggregator's whole state in directory `dir` (created if missing), so that a restarted
  // aggregator resumes: the (device, round) pairs counted, the open rounds' records, the
  // combined statistics of the closed rounds and the counters. Load on a directory without a
  // saved state leaves the aggregator as it is and returns true.
  bool Save(const std::string& dir, std::string* error) const;
  bool Load(const std::string& dir, std::string* error);

  size_t accepted() const { return accepted_; }
  size_t duplicates() const { return duplicates_; }
  size_t rejected() const { return rejected_; }
  uint32_t last_closed() const { return last_closed_; }
  bool any_closed() const { return any_closed_; }

 private:
  struct Update {
    uint64_t samples = 0;
    std::vector<LayerStats> layers;
    std::vector<uint8_t> record;  // as received (Save)
  };
  uint64_t model_hash_;
  std::vector<size_t> channels_;
  float max_variance_;
  std::map<uint32_t, std::map<uint32_t, Update>> rounds_;  // round → device → update (open)
  std::set<std::pair<uint32_t, uint32_t>> seen_;           // (device, round) ever accepted
  size_t accepted_ = 0, duplicates_ = 0, rejected_ = 0;
  std::vector<LayerStats> global_;  // all closed rounds combined
  uint64_t global_samples_ = 0;
  uint32_t last_closed_ = 0;
  bool any_closed_ = false;
};

}  // namespace edgefold::fleet
