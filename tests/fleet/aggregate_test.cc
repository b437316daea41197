// The aggregator: combined statistics against closed forms (two devices whose samples are
// known), sample weighting, idempotence by (device, round), robustness to bad records.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "aggregate.h"

namespace edgefold::fleet {
namespace {

// Record of one layer from `device` for `round`.
std::vector<uint8_t> Record(uint32_t device, uint32_t round, uint32_t samples,
                            std::vector<float> mean, std::vector<float> var, uint64_t hash = 9) {
  BnLayerStats l{mean.size(), mean.data(), var.data(), nullptr, nullptr};
  UpdateRecordHeader h;
  h.model_hash = hash;
  h.round = round;
  h.samples = samples;
  h.origin = device;
  h.layers = 1;
  const size_t c = mean.size();
  std::vector<uint8_t> r(UpdateRecordBytes(&c, 1, RecordEncoding::kFloat32, false));
  EXPECT_EQ(WriteUpdateRecord(h, &l, r.data(), r.size(), nullptr), Status::kOk);
  return r;
}

// A record the writer would refuse (it checks its values): `value` poked at float `index` of
// the layer's arrays (mean then variance), the CRC recomputed.
std::vector<uint8_t> Poked(std::vector<uint8_t> r, size_t index, float value) {
  std::memcpy(&r[32 + 2 + 4 * index], &value, 4);  // little-endian host
  const uint32_t crc = Crc32(r.data(), r.size() - 4);
  for (int i = 0; i < 4; ++i) r[r.size() - 4 + i] = uint8_t(crc >> (8 * i));
  return r;
}

// Mean and biased variance of a list.
void Moments(const std::vector<double>& x, double* m, double* v) {
  double s = 0;
  for (double a : x) s += a;
  *m = s / double(x.size());
  double ss = 0;
  for (double a : x) ss += (a - *m) * (a - *m);
  *v = ss / double(x.size());
}

TEST(FleetAggregate, CombinedStatisticsEqualThoseOfAllSamples) {
  // Device A saw {1, 2, 3, 6}, device B {10, 12}; channel 1 is A·2 and B·(−1).
  const std::vector<double> a = {1, 2, 3, 6}, b = {10, 12};
  double ma, va, mb, vb, m, v;
  Moments(a, &ma, &va);
  Moments(b, &mb, &vb);
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  Moments(all, &m, &v);
  std::vector<LayerStats> la(1), lb(1), out;
  la[0].mean = {ma, 2 * ma};
  la[0].var = {va, 4 * va};
  lb[0].mean = {mb, -mb};
  lb[0].var = {vb, vb};
  ASSERT_EQ(CombineStatistics({{4, la}, {2, lb}}, &out), 6u);
  EXPECT_NEAR(out[0].mean[0], m, 1e-12);
  EXPECT_NEAR(out[0].var[0], v, 1e-12);
  std::vector<double> all1;
  for (double x : a) all1.push_back(2 * x);
  for (double x : b) all1.push_back(-x);
  Moments(all1, &m, &v);
  EXPECT_NEAR(out[0].mean[1], m, 1e-12);
  EXPECT_NEAR(out[0].var[1], v, 1e-12);
  EXPECT_TRUE(out[0].gamma.empty());
}

TEST(FleetAggregate, RoundIsIdempotentAndRobust) {
  Aggregator agg(9, {2});
  std::string why;
  const std::vector<uint8_t> a = Record(1, 1, 30, {0, 1}, {1, 2});
  const std::vector<uint8_t> b = Record(2, 1, 10, {4, 1}, {1, 0.5f});
  EXPECT_EQ(agg.Add(1, a.data(), a.size(), &why), Outcome::kAccepted) << why;
  EXPECT_EQ(agg.Add(1, a.data(), a.size(), &why), Outcome::kDuplicate);  // a QoS 1 redelivery
  EXPECT_EQ(agg.Add(2, b.data(), b.size(), &why), Outcome::kAccepted) << why;
  // Refused: NaN, variance 1e30, wrong layer count, wrong model, another device's origin.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<uint8_t> bad_nan = Poked(Record(3, 1, 10, {0, 0}, {1, 1}), 0, nan);
  const std::vector<uint8_t> bad_var = Poked(Record(4, 1, 10, {0, 0}, {1, 1}), 2, 1e30f);
  const std::vector<uint8_t> bad_layers = Record(5, 1, 10, {0, 0, 0}, {1, 1, 1});
  const std::vector<uint8_t> bad_model = Record(6, 1, 10, {0, 0}, {1, 1}, 10);
  EXPECT_EQ(agg.Add(3, bad_nan.data(), bad_nan.size(), &why), Outcome::kRejected);
  EXPECT_NE(why.find("mean[0]"), std::string::npos) << why;
  EXPECT_EQ(agg.Add(4, bad_var.data(), bad_var.size(), &why), Outcome::kRejected);
  EXPECT_NE(why.find("variance absurd"), std::string::npos) << why;
  EXPECT_EQ(agg.Add(5, bad_layers.data(), bad_layers.size(), &why), Outcome::kRejected);
  EXPECT_NE(why.find("channels 3"), std::string::npos) << why;
  EXPECT_EQ(agg.Add(6, bad_model.data(), bad_model.size(), &why), Outcome::kRejected);
  EXPECT_NE(why.find("model hash"), std::string::npos) << why;
  EXPECT_EQ(agg.Add(7, a.data(), a.size(), &why), Outcome::kRejected);
  EXPECT_NE(why.find("origin 1"), std::string::npos) << why;
  EXPECT_EQ(agg.Count(1), 2u);
  EXPECT_EQ(agg.accepted(), 2u);
  EXPECT_EQ(agg.duplicates(), 1u);
  EXPECT_EQ(agg.rejected(), 5u);
  std::vector<uint8_t> global;
  ASSERT_TRUE(agg.Close(1, &global));
  const size_t c = 2;
  UpdateExpectation e;
  e.model_hash = 9;
  e.channels = &c;
  e.layers = 1;
  UpdateRecordHeader h;
  ASSERT_EQ(CheckUpdateRecord(global.data(), global.size(), e, &h), Status::kOk);
  EXPECT_EQ(h.samples, 40u);
  EXPECT_EQ(h.origin, 0u);
  float m[2], v[2];
  ASSERT_EQ(DecodeUpdateLayer(global.data(), global.size(), 0, m, v, nullptr, nullptr),
            Status::kOk);
  // Channel 0: μ = (30·0 + 10·4)/40 = 1; σ² = (30·(1 + 1) + 10·(1 + 9))/40 = 4.
  EXPECT_NEAR(m[0], 1.0, 1e-6);
  EXPECT_NEAR(v[0], 4.0, 1e-6);
  // Channel 1: equal means, σ² = (30·2 + 10·0.5)/40.
  EXPECT_NEAR(m[1], 1.0, 1e-6);
  EXPECT_NEAR(v[1], 65.0 / 40, 1e-6);
  // The round is closed: a redelivery of a counted record is still a duplicate, a late record
  // for it is refused; the next round is open.
  EXPECT_EQ(agg.Add(2, b.data(), b.size(), &why), Outcome::kDuplicate) << why;
  const std::vector<uint8_t> late = Record(8, 1, 10, {4, 1}, {1, 0.5f});
  EXPECT_EQ(agg.Add(8, late.data(), late.size(), &why), Outcome::kRejected);
  EXPECT_NE(why.find("closed"), std::string::npos) << why;
  const std::vector<uint8_t> next = Record(2, 2, 10, {4, 1}, {1, 0.5f});
  EXPECT_EQ(agg.Add(2, next.data(), next.size(), &why), Outcome::kAccepted) << why;
  // Round 2's aggregate holds every sample so far: 40 + 10, the new ones at μ = (4, 1).
  ASSERT_TRUE(agg.Close(2, &global));
  ASSERT_EQ(CheckUpdateRecord(global.data(), global.size(), e, &h), Status::kOk);
  EXPECT_EQ(h.samples, 50u);
  ASSERT_EQ(DecodeUpdateLayer(global.data(), global.size(), 0, m, v, nullptr, nullptr),
            Status::kOk);
  // Channel 0 over all 50: μ = (40·1 + 10·4)/50 = 1.6; σ² = (40·(4 + 0.36) + 10·(1 + 5.76))/50.
  EXPECT_NEAR(m[0], 1.6, 1e-6);
  EXPECT_NEAR(v[0], (40 * 4.36 + 10 * 6.76) / 50, 1e-5);
}

}  // namespace
}  // namespace edgefold::fleet

namespace edgefold::fleet {
namespace {

// A restarted aggregator resumes from its saved state: what was counted stays counted (a
// redelivery is a duplicate), and the next round's aggregate is the one it would have made.
TEST(FleetAggregate, SavedStateResumesExactly) {
  const std::string dir = ::testing::TempDir() + "/fleet_aggregate_state";
  std::filesystem::remove_all(dir);
  Aggregator a(9, {2}), b(9, {2});
  std::string why, error;
  std::vector<uint8_t> global_a, global_b;
  const std::vector<uint8_t> r1 = Record(1, 1, 30, {0, 1}, {1, 2});
  const std::vector<uint8_t> r2 = Record(2, 1, 10, {4, 1}, {1, 0.5f});
  const std::vector<uint8_t> next1 = Record(1, 2, 20, {1, 3}, {2, 1});
  const std::vector<uint8_t> next2 = Record(2, 2, 5, {-1, 0}, {0.5f, 4});
  for (Aggregator* g : {&a, &b}) {
    ASSERT_EQ(g->Add(1, r1.data(), r1.size(), &why), Outcome::kAccepted) << why;
    ASSERT_EQ(g->Add(2, r2.data(), r2.size(), &why), Outcome::kAccepted) << why;
    std::vector<uint8_t> closed;
    ASSERT_TRUE(g->Close(1, &closed));
    ASSERT_EQ(g->Add(1, next1.data(), next1.size(), &why), Outcome::kAccepted) << why;
  }
  ASSERT_TRUE(b.Save(dir, &error)) << error;
  Aggregator c(9, {2});
  ASSERT_TRUE(c.Load(dir, &error)) << error;
  EXPECT_EQ(c.accepted(), 3u);
  EXPECT_EQ(c.Count(2), 1u);
  EXPECT_EQ(c.Add(1, next1.data(), next1.size(), &why), Outcome::kDuplicate);
  EXPECT_EQ(c.Add(2, r2.data(), r2.size(), &why), Outcome::kDuplicate);
  ASSERT_EQ(a.Add(2, next2.data(), next2.size(), &why), Outcome::kAccepted) << why;
  ASSERT_EQ(c.Add(2, next2.data(), next2.size(), &why), Outcome::kAccepted) << why;
  ASSERT_TRUE(a.Close(2, &global_a));
  ASSERT_TRUE(c.Close(2, &global_b));
  EXPECT_EQ(global_a, global_b);
  EXPECT_EQ(c.accepted(), 4u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace edgefold::fleet
