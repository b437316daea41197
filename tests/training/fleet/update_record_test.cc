// Fleet update records: round trips (fp32 exact, int8 within its quantization step), the
// record size for ResNet-8's BatchNorms, every malformed record refused by name with the
// trainer unchanged, and a trainer's export/import.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "edgefold/trainer.h"
#include "edgefold/update_record.h"
#include "testing/efb_builder.h"
#include "testing/runtime_session.h"

namespace edgefold::testing {
namespace {

void Collect(void* user, const char* message) {
  static_cast<std::string*>(user)->append(message).append("\n");
}

struct Layers {
  std::vector<size_t> channels;
  std::vector<std::vector<float>> mean, var, gamma, beta;
  std::vector<BnLayerStats> views;
};

Layers MakeLayers(const std::vector<size_t>& channels, unsigned seed) {
  Layers l;
  l.channels = channels;
  for (size_t i = 0; i < channels.size(); ++i) {
    l.mean.push_back(RandomVector(channels[i], seed + 4 * i, -2, 2));
    l.var.push_back(RandomVector(channels[i], seed + 4 * i + 1, 0.01f, 10));
    l.gamma.push_back(RandomVector(channels[i], seed + 4 * i + 2, 0.5f, 1.5f));
    l.beta.push_back(RandomVector(channels[i], seed + 4 * i + 3));
  }
  for (size_t i = 0; i < channels.size(); ++i)
    l.views.push_back(
        {channels[i], l.mean[i].data(), l.var[i].data(), l.gamma[i].data(), l.beta[i].data()});
  return l;
}

std::vector<uint8_t> Write(const Layers& l, RecordEncoding e, bool affine, uint64_t hash = 7) {
  UpdateRecordHeader h;
  h.model_hash = hash;
  h.round = 3;
  h.samples = 120;
  h.origin = 5;
  h.layers = uint16_t(l.views.size());
  h.encoding = e;
  h.affine = affine;
  std::vector<uint8_t> out(UpdateRecordBytes(l.channels.data(), l.channels.size(), e, affine));
  size_t written = 0;
  EXPECT_EQ(WriteUpdateRecord(h, l.views.data(), out.data(), out.size(), &written), Status::kOk);
  EXPECT_EQ(written, out.size());
  return out;
}

UpdateExpectation Expect(const Layers& l, uint64_t hash = 7) {
  UpdateExpectation e;
  e.model_hash = hash;
  e.channels = l.channels.data();
  e.layers = l.channels.size();
  return e;
}

// Recomputes the CRC after a test edits a record (so that the check under test is reached).
void Reseal(std::vector<uint8_t>* r) {
  const uint32_t crc = Crc32(r->data(), r->size() - 4);
  for (int i = 0; i < 4; ++i) (*r)[r->size() - 4 + i] = uint8_t(crc >> (8 * i));
}

void PutFloat(std::vector<uint8_t>* r, size_t at, float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  for (int i = 0; i < 4; ++i) (*r)[at + i] = uint8_t(v >> (8 * i));
}

// The message CheckUpdateRecord gives, or "" when it accepts.
std::string Refusal(const std::vector<uint8_t>& r, const UpdateExpectation& e) {
  std::string log;
  UpdateRecordHeader h;
  const Status s = CheckUpdateRecord(r.data(), r.size(), e, &h, Collect, &log);
  return s == Status::kOk ? "" : log;
}

TEST(UpdateRecord, Float32RoundTripIsExactAndHeaderSurvives) {
  const Layers l = MakeLayers({4, 7}, 10);
  const std::vector<uint8_t> r = Write(l, RecordEncoding::kFloat32, true);
  UpdateRecordHeader h;
  ASSERT_EQ(CheckUpdateRecord(r.data(), r.size(), Expect(l), &h), Status::kOk);
  EXPECT_EQ(h.round, 3u);
  EXPECT_EQ(h.samples, 120u);
  EXPECT_EQ(h.origin, 5u);
  EXPECT_TRUE(h.affine);
  for (size_t i = 0; i < 2; ++i) {
    std::vector<float> m(l.channels[i]), v(m.size()), g(m.size()), b(m.size());
    ASSERT_EQ(DecodeUpdateLayer(r.data(), r.size(), i, m.data(), v.data(), g.data(), b.data()),
              Status::kOk);
    EXPECT_EQ(m, l.mean[i]);
    EXPECT_EQ(v, l.var[i]);
    EXPECT_EQ(g, l.gamma[i]);
    EXPECT_EQ(b, l.beta[i]);
  }
}

TEST(UpdateRecord, Int8RoundTripWithinOneStep) {
  const Layers l = MakeLayers({16, 33}, 20);
  const std::vector<uint8_t> r = Write(l, RecordEncoding::kInt8, false);
  ASSERT_EQ(Refusal(r, Expect(l)), "");
  for (size_t i = 0; i < 2; ++i) {
    std::vector<float> m(l.channels[i]), v(m.size());
    ASSERT_EQ(DecodeUpdateLayer(r.data(), r.size(), i, m.data(), v.data(), nullptr, nullptr),
              Status::kOk);
    const auto [mlo, mhi] = std::minmax_element(l.mean[i].begin(), l.mean[i].end());
    const auto [vlo, vhi] = std::minmax_element(l.var[i].begin(), l.var[i].end());
    const double mean_step = (*mhi - *mlo) / 255.0, log_step = std::log(*vhi / *vlo) / 255.0;
    for (size_t c = 0; c < m.size(); ++c) {
      EXPECT_NEAR(m[c], l.mean[i][c], 0.5 * mean_step + 1e-6);
      EXPECT_NEAR(std::log(v[c]), std::log(l.var[i][c]), 0.5 * log_step + 1e-5);
    }
  }
}

TEST(UpdateRecord, ResNet8BatchNormStatisticsFitTheirBudget) {
  // ResNet-8 (bench/export_models.py): stem 16, stage 1 16+16, stages 2 and 3 two convs and a
  // 1×1 shortcut each with a BatchNorm: 32×3, 64×3 — 9 BatchNorms, 336 channels.
  const std::vector<size_t> c = {16, 16, 16, 32, 32, 32, 64, 64, 64};
  const size_t fp32 = UpdateRecordBytes(c.data(), c.size(), RecordEncoding::kFloat32, false);
  const size_t int8 = UpdateRecordBytes(c.data(), c.size(), RecordEncoding::kInt8, false);
  std::printf("ResNet-8 BN statistics record: fp32 %zu bytes, int8 %zu bytes (+%zu signed)\n", fp32,
              int8, kUpdateSignatureBytes);
  EXPECT_EQ(fp32, 32 + 4 + 9 * 2 + 336 * 8u);
  EXPECT_LE(fp32 + kUpdateSignatureBytes, 4096u);
  EXPECT_LE(int8 + kUpdateSignatureBytes, 1024u);
  const Layers l = MakeLayers(c, 30);
  EXPECT_EQ(Write(l, RecordEncoding::kInt8, false).size(), int8);
}

TEST(UpdateRecord, EveryMalformedRecordIsRefusedByName) {
  const Layers l = MakeLayers({4, 6}, 40);
  const std::vector<uint8_t> good = Write(l, RecordEncoding::kFloat32, false);
  const UpdateExpectation e = Expect(l);
  ASSERT_EQ(Refusal(good, e), "");
  auto edited = [&](auto edit, bool reseal = true) {
    std::vector<uint8_t> r = good;
    edit(&r);
    if (reseal) Reseal(&r);
    return Refusal(r, e);
  };
  EXPECT_NE(edited([](auto* r) { (*r)[4] = 9; }).find("version 9"), std::string::npos);
  EXPECT_NE(edited([](auto* r) { (*r)[0] = 'X'; }).find("magic"), std::string::npos);
  EXPECT_NE(edited([](auto* r) { (*r)[8] ^= 1; }).find("model hash"), std::string::npos);
  EXPECT_NE(edited([](auto* r) { (*r)[8] ^= 1; }, false).find("checksum"), std::string::npos);
  EXPECT_NE(edited([](auto* r) { (*r)[40] ^= 0x10; }, false).find("checksum"), std::string::npos);
  EXPECT_NE(edited([](auto* r) { r->resize(r->size() - 9); }, false).find("size"),
            std::string::npos);
  EXPECT_NE(edited([](auto* r) { r->resize(20); }, false).find("size"), std::string::npos);
  EXPECT_NE(edited([](auto* r) { r->push_back(0); }, false).find("size"), std::string::npos);
  // The mean of layer 0, channel 1, then its variance (header 32, channels 2).
  const size_t mean01 = 32 + 2 + 4, var00 = 32 + 2 + 4 * 4;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(edited([&](auto* r) { PutFloat(r, mean01, nan); }).find("layer 0 mean[1]"),
            std::string::npos);
  EXPECT_NE(edited([&](auto* r) { PutFloat(r, var00, 1e30f); }).find("variance absurd"),
            std::string::npos);
  EXPECT_NE(edited([&](auto* r) { PutFloat(r, var00, -1.0f); }).find("variance < 0"),
            std::string::npos);
  EXPECT_NE(edited([&](auto* r) { PutFloat(r, var00, INFINITY); }).find("not finite"),
            std::string::npos);
  // Layer count and channels against the model.
  UpdateExpectation three = e;
  const size_t c3[3] = {4, 6, 2};
  three.channels = c3;
  three.layers = 3;
  EXPECT_NE(Refusal(good, three).find("layer count 2"), std::string::npos);
  const size_t c2[2] = {4, 5};
  UpdateExpectation narrow = e;
  narrow.channels = c2;
  EXPECT_NE(Refusal(good, narrow).find("layer 1 channels 6"), std::string::npos);
}

bool AcceptsSignature(void* user, const uint8_t*, size_t, const uint8_t* sig, size_t n) {
  return n == kUpdateSignatureBytes && sig[0] == *static_cast<uint8_t*>(user);
}

TEST(UpdateRecord, SignatureIsRequiredAndCheckedThroughTheHook) {
  const Layers l = MakeLayers({3}, 50);
  std::vector<uint8_t> r = Write(l, RecordEncoding::kFloat32, false);
  uint8_t key = 0xA5;
  RecordVerifier v;
  v.verify = AcceptsSignature;
  v.user = &key;
  UpdateExpectation e = Expect(l);
  e.verifier = &v;
  EXPECT_NE(Refusal(r, e).find("signature missing"), std::string::npos);
  r.resize(r.size() + kUpdateSignatureBytes, 0);
  EXPECT_NE(Refusal(r, e).find("signature does not verify"), std::string::npos);
  r[r.size() - kUpdateSignatureBytes] = 0xA5;
  EXPECT_EQ(Refusal(r, e), "");
  EXPECT_NE(Refusal(r, Expect(l)).find("no verifier"), std::string::npos);
}

// x[4,3,5] → BN → Reshape[4,15] → fc → [4,2]
std::vector<uint8_t> BnModel() {
  EfbBuilder b;
  const int x = b.AddInput("x", {4, 3, 5});
  const int y = AddBatchNorm(b, "bn", x, 3, {4, 3, 5}, fb::ActivationKind::None, 40);
  const int flat = b.AddTensor("flat", {4, 15});
  fb::OpOptionsUnion u;
  u.Set(fb::ReshapeOptionsT());
  b.AddOp(fb::OpType::Reshape, "flatten", {y}, {flat}, std::move(u));
  const int fw = b.AddConstant("fc.w", {15, 2}, RandomVector(30, 41));
  const int z = b.AddTensor("z", {4, 2});
  u.Set(fb::GemmOptionsT());
  b.AddOp(fb::OpType::Gemm, "fc", {flat, fw}, {z}, std::move(u));
  b.AddOutput(z);
  return b.Finish();
}

std::vector<float> Logits(Trainer& t, const std::vector<float>& x) {
  std::vector<float> y(t.batch_size() * t.num_classes());
  EXPECT_EQ(t.Evaluate(x.data(), y.data()), Status::kOk);
  return y;
}

TEST(UpdateRecord, TrainerExportsAndImportsItsBatchNorms) {
  const std::vector<uint8_t> model = BnModel();
  const uint64_t hash = ModelHash(model.data(), model.size());
  TrainOptions t;
  t.trainable = Trainable::kBatchNorm;
  auto a = CreateTrainer(model, t);
  auto b = CreateTrainer(model, t);
  ASSERT_EQ(a->status, Status::kOk) << a->log;
  ASSERT_EQ(a->trainer->num_batchnorms(), 1u);
  const std::vector<float> x = RandomVector(60, 60, -3, 5);
  ASSERT_EQ(a->trainer->AdaptStatistics(x.data()), Status::kOk);
  UpdateRecordHeader h;
  h.model_hash = hash;
  h.round = 1;
  h.samples = 4;
  h.affine = true;
  std::vector<uint8_t> r(4096);
  size_t n = 0;
  ASSERT_EQ(ExportTrainerUpdate(*a->trainer, h, r.data(), r.size(), &n), Status::kOk);
  r.resize(n);
  UpdateExpectation e;
  e.model_hash = hash;
  const std::vector<float> before = Logits(*b->trainer, x);
  // Refused: wrong model hash, truncated, NaN. The trainer's outputs do not move.
  std::string log;
  UpdateExpectation wrong = e;
  wrong.model_hash = hash ^ 1;
  EXPECT_NE(ImportTrainerUpdate(b->trainer, r.data(), r.size(), wrong, nullptr, Collect, &log),
            Status::kOk);
  EXPECT_NE(log.find("model hash"), std::string::npos) << log;
  EXPECT_NE(ImportTrainerUpdate(b->trainer, r.data(), r.size() - 1, e, nullptr), Status::kOk);
  std::vector<uint8_t> nan = r;
  PutFloat(&nan, 32 + 2 + 2 * 12 + 4, std::numeric_limits<float>::quiet_NaN());  // γ[1]
  Reseal(&nan);
  log.clear();
  EXPECT_EQ(ImportTrainerUpdate(b->trainer, nan.data(), nan.size(), e, nullptr, Collect, &log),
            Status::kNumericError);
  EXPECT_NE(log.find("gamma[1]"), std::string::npos) << log;
  EXPECT_EQ(Logits(*b->trainer, x), before);
  // Accepted: b then holds a's BatchNorm and evaluates as a does.
  ASSERT_EQ(ImportTrainerUpdate(b->trainer, r.data(), r.size(), e, &h), Status::kOk);
  EXPECT_EQ(h.round, 1u);
  const Trainer::BatchNormView va = a->trainer->batchnorm(0), vb = b->trainer->batchnorm(0);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(va.mean[c], vb.mean[c]);
    EXPECT_EQ(va.var[c], vb.var[c]);
  }
  const std::vector<float> ya = Logits(*a->trainer, x), yb = Logits(*b->trainer, x);
  EXPECT_NE(yb, before);
  for (size_t i = 0; i < ya.size(); ++i) EXPECT_NEAR(ya[i], yb[i], 1e-4 * (1 + std::fabs(ya[i])));
}

}  // namespace
}  // namespace edgefold::testing
