// The training step's buffers are planned by the compiler (compile --train): every buffer at
// its planned offset, buffers with overlapping lifetimes never overlapping in memory, and the
// planned trainer computing bit for bit what the one-after-the-other layout computes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "edgefold/model_generated.h"
#include "edgefold/trainer.h"
#include "file_io.h"
#include "npy.h"
#include "planned_buffers.h"
#include "testing/onnx_builder.h"
#include "train_compile.h"
#include "training_compile_util.h"

namespace edgefold::tools {
namespace {

const std::string kData = EDGEFOLD_TRAINING_DATA;
constexpr int kBatch = 8;

// A model and data to train on: the golden model, and the digits CNN (whose convs need more
// im2col columns for their backward than the phase-plane scratch of their forward).
struct Case {
  std::string onnx, x, y;
  int batch;
};
const Case kGolden{kData + "/model.onnx", kData + "/x.npy", kData + "/y.npy", kBatch};
const Case kDigits{std::string(EDGEFOLD_DIGITS_DIR) + "/digits_cnn.onnx",
                   std::string(EDGEFOLD_DIGITS_DIR) + "/drift_adapt_x.npy",
                   std::string(EDGEFOLD_DIGITS_DIR) + "/drift_adapt_y.npy", 10};

// `c` compiled for training; `planned` adds the training section (set `set`) and its plan.
std::vector<uint8_t> Compile(const Case& c, bool planned, Trainable set = Trainable::kAll) {
  onnx::ModelProto proto;
  std::string error;
  EXPECT_TRUE(LoadOnnx(c.onnx, &proto, &error)) << error;
  compiler::CompileOptions options;
  EXPECT_TRUE(ConfigureTrainingCompile(&proto, c.batch, &options, &error)) << error;
  compiler::CompileResult r = compiler::CompileModel(proto, options);
  EXPECT_TRUE(r.ok) << r.error;
  if (planned) EXPECT_TRUE(AddTrainingSection(&r.model, set, &error)) << error;
  return r.model;
}

struct Session {
  AlignedBuffer model, arena;
  size_t arena_bytes = 0;
  Trainer* trainer = nullptr;
  std::string log;
};

std::unique_ptr<Session> Create(const std::vector<uint8_t>& efb, Trainable set) {
  auto s = std::make_unique<Session>();
  s->model = AllocateAligned(efb.size());
  std::memcpy(s->model.data.get(), efb.data(), efb.size());
  TrainOptions t;
  t.trainable = set;
  Options o;
  o.log = [](void* user, const char* m) { *static_cast<std::string*>(user) += m; };
  o.log_user = &s->log;
  if (RequiredTrainingArenaBytes(s->model.data.get(), efb.size(), t, &s->arena_bytes, o) !=
      Status::kOk)
    return s;
  s->arena = AllocateAligned(s->arena_bytes);
  if (Trainer::Create(s->model.data.get(), efb.size(), s->arena.data.get(), s->arena_bytes, t, o,
                      &s->trainer) != Status::kOk)
    s->trainer = nullptr;
  return s;
}

std::vector<TrainingBuffer> Buffers(const std::vector<uint8_t>& efb) {
  AlignedBuffer bytes = AllocateAligned(efb.size());
  std::memcpy(bytes.data.get(), efb.data(), efb.size());
  std::vector<TrainingBuffer> out;
  auto visit = [](void* user, const TrainingBuffer& b) {
    static_cast<std::vector<TrainingBuffer>*>(user)->push_back(b);
  };
  EXPECT_EQ(ForEachTrainingBuffer(bytes.data.get(), efb.size(), TrainOptions(), visit, &out),
            Status::kOk);
  return out;
}

void ExpectBitForBit(const Case& c, Trainable set) {
  SCOPED_TRACE(c.onnx + " " + TrainableName(set));
  auto plain = Create(Compile(c, false), set);
  auto planned = Create(Compile(c, true, set), Trainable::kModel);
  ASSERT_NE(plain->trainer, nullptr) << plain->log;
  ASSERT_NE(planned->trainer, nullptr) << planned->log;
  EXPECT_LT(planned->arena_bytes, plain->arena_bytes);
  NpyArray x, y;
  std::string error;
  ASSERT_TRUE(ReadNpy(c.x, &x, &error)) << error;
  ASSERT_TRUE(ReadNpy(c.y, &y, &error)) << error;
  const size_t n = static_cast<size_t>(c.batch), per = n * plain->trainer->sample_elems();
  for (size_t b = 0; b < 4; ++b) {
    std::vector<int32_t> labels(y.i64.begin() + b * n, y.i64.begin() + (b + 1) * n);
    float loss_a = 0, loss_b = 0;
    ASSERT_EQ(plain->trainer->TrainStep(x.f32.data() + b * per, labels.data(), &loss_a, nullptr),
              Status::kOk);
    ASSERT_EQ(planned->trainer->TrainStep(x.f32.data() + b * per, labels.data(), &loss_b, nullptr),
              Status::kOk);
    EXPECT_EQ(loss_a, loss_b) << "step " << b;
  }
  ASSERT_EQ(plain->trainer->num_parameters(), planned->trainer->num_parameters());
  for (size_t i = 0; i < plain->trainer->num_parameters(); ++i) {
    const ParameterView a = plain->trainer->parameter(i), b = planned->trainer->parameter(i);
    ASSERT_EQ(a.elems, b.elems);
    EXPECT_EQ(std::memcmp(a.data, b.data, a.elems * sizeof(float)), 0) << a.name;
  }
  std::vector<float> out_a(n * plain->trainer->num_classes()), out_b(out_a.size());
  ASSERT_EQ(plain->trainer->Evaluate(x.f32.data(), out_a.data()), Status::kOk);
  ASSERT_EQ(planned->trainer->Evaluate(x.f32.data(), out_b.data()), Status::kOk);
  EXPECT_EQ(out_a, out_b);
}

TEST(TrainingPlan, PlannedAndUnplannedLayoutsTrainBitForBit) {
  for (const Case* c : {&kGolden, &kDigits})
    for (Trainable set : {Trainable::kBatchNorm, Trainable::kBatchNormAndHead, Trainable::kAll})
      ExpectBitForBit(*c, set);
}

// `proto` compiled for training at kBatch, trainable kAll; `planned` adds the plan.
std::vector<uint8_t> CompileProto(onnx::ModelProto proto, bool planned) {
  std::string error;
  compiler::CompileOptions options;
  EXPECT_TRUE(ConfigureTrainingCompile(&proto, kBatch, &options, &error)) << error;
  compiler::CompileResult r = compiler::CompileModel(proto, options);
  EXPECT_TRUE(r.ok) << r.error;
  if (planned) EXPECT_TRUE(AddTrainingSection(&r.model, Trainable::kAll, &error)) << error;
  return r.model;
}

// x[8,2,5,5] → conv → BN → Relu = a, conv → BN = b; Min(Max(a, b), b) → Tanh → GAP → fc → [8,3]:
// Min/Max backward compares the forward operands, so the plan must keep them until then.
onnx::ModelProto MinMaxNet() {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  auto values = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = dist(gen);
    return v;
  };
  testing::OnnxBuilder b;
  b.Input("x", {kBatch, 2, 5, 5});
  b.Init("wa", {4, 2, 3, 3}, values(72))
      .Init("wb", {4, 2, 1, 1}, values(8))
      .Init("fc", {4, 3}, values(12));
  b.Init("fc_b", {3}, values(3));
  testing::SetInts(b.Node("Conv", {"x", "wa"}, {"ca"}, "conv_a"), "pads", {1, 1, 1, 1});
  testing::AddBatchNorm(b, "bn_a", "ca", "na", 4, 1);
  b.Node("Relu", {"na"}, {"a"}, "relu_a");
  b.Node("Conv", {"x", "wb"}, {"cb"}, "conv_b");
  testing::AddBatchNorm(b, "bn_b", "cb", "nb", 4, 2);
  b.Node("Max", {"a", "nb"}, {"m"}, "max");
  b.Node("Min", {"m", "nb"}, {"mn"}, "min");
  b.Node("Tanh", {"mn"}, {"t"}, "tanh");
  b.Node("GlobalAveragePool", {"t"}, {"g"}, "gap");
  b.Node("Flatten", {"g"}, {"f"}, "flatten");
  b.Node("Gemm", {"f", "fc", "fc_b"}, {"logits"}, "fc");
  b.Output("logits");
  return b.model();
}

TEST(TrainingPlan, MinMaxOperandsOutliveTheirBackward) {
  auto plain = Create(CompileProto(MinMaxNet(), false), Trainable::kAll);
  auto planned = Create(CompileProto(MinMaxNet(), true), Trainable::kModel);
  ASSERT_NE(plain->trainer, nullptr) << plain->log;
  ASSERT_NE(planned->trainer, nullptr) << planned->log;
  std::mt19937 gen(3);
  std::normal_distribution<float> dist;
  std::vector<float> x(kBatch * plain->trainer->sample_elems());
  for (float& v : x) v = dist(gen);
  std::vector<int32_t> labels(kBatch);
  for (int i = 0; i < kBatch; ++i) labels[i] = i % 3;
  for (int step = 0; step < 3; ++step) {
    float loss_a = 0, loss_b = 0;
    ASSERT_EQ(plain->trainer->TrainStep(x.data(), labels.data(), &loss_a, nullptr), Status::kOk);
    ASSERT_EQ(planned->trainer->TrainStep(x.data(), labels.data(), &loss_b, nullptr), Status::kOk);
    EXPECT_EQ(loss_a, loss_b) << "step " << step;
  }
  for (size_t i = 0; i < plain->trainer->num_parameters(); ++i) {
    const ParameterView a = plain->trainer->parameter(i), b = planned->trainer->parameter(i);
    EXPECT_EQ(std::memcmp(a.data, b.data, a.elems * sizeof(float)), 0) << a.name;
  }
}

TEST(TrainingPlan, BuffersLiveAtTheSameStepNeverOverlap) {
  const std::vector<uint8_t> efb = Compile(kDigits, true, Trainable::kBatchNormAndHead);
  const fb::TrainingSection* t = fb::GetModel(efb.data())->training();
  ASSERT_NE(t, nullptr);
  ASSERT_NE(t->buffers(), nullptr);
  const std::vector<TrainingBuffer> buffers = Buffers(efb);
  ASSERT_EQ(buffers.size(), t->buffers()->size());
  size_t shared = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const uint64_t a = PlannedOffsetOf(t, buffers[i]);
    ASSERT_NE(a, UINT64_MAX) << "buffer " << i << " has no record";
    EXPECT_LE(a + buffers[i].bytes, t->planned_bytes());
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const uint64_t b = PlannedOffsetOf(t, buffers[j]);
      const bool memory = a < b + buffers[j].bytes && b < a + buffers[i].bytes;
      const bool live = buffers[i].first_step <= buffers[j].last_step &&
                        buffers[j].first_step <= buffers[i].last_step;
      EXPECT_FALSE(memory && live) << "buffers " << i << " and " << j;
      shared += memory;
    }
  }
  EXPECT_GT(shared, 0u) << "no two buffers share memory: the plan is not by lifetime";
  EXPECT_GE(t->planned_bytes(), t->lower_bound());
}

// Every buffer sits where the compiler put it: moving the whole plan up by one cache line moves
// every parameter copy by exactly that much.
TEST(TrainingPlan, TheRuntimeUsesThePlannedOffsetsVerbatim) {
  const std::vector<uint8_t> efb = Compile(kDigits, true, Trainable::kBatchNormAndHead);
  auto model = fb::UnPackModel(efb.data());
  for (auto& record : model->training->buffers) record->offset += 64;
  model->training->planned_bytes += 64;
  auto a = Create(efb, Trainable::kModel), b = Create(Repack(*model), Trainable::kModel);
  ASSERT_NE(a->trainer, nullptr) << a->log;
  ASSERT_NE(b->trainer, nullptr) << b->log;
  for (size_t i = 0; i < a->trainer->num_parameters(); ++i) {
    const auto* pa = reinterpret_cast<const uint8_t*>(a->trainer->parameter(i).data);
    const auto* pb = reinterpret_cast<const uint8_t*>(b->trainer->parameter(i).data);
    EXPECT_EQ(pa - a->arena.data.get() + 64, pb - b->arena.data.get())
        << a->trainer->parameter(i).name;
  }
}

// Buffers are found by role, not by position: with the section's records in reverse order the
// parameters sit at the same offsets and three training steps give the same bits.
TEST(TrainingPlan, RecordsInAnotherOrderPlaceEveryBufferAlike) {
  const std::vector<uint8_t> efb = Compile(kDigits, true, Trainable::kBatchNormAndHead);
  auto model = fb::UnPackModel(efb.data());
  ASSERT_GT(model->training->buffers.size(), 2u);
  std::reverse(model->training->buffers.begin(), model->training->buffers.end());
  const std::vector<uint8_t> reversed = Repack(*model);
  ASSERT_NE(reversed, efb);
  auto a = Create(efb, Trainable::kModel), b = Create(reversed, Trainable::kModel);
  ASSERT_NE(a->trainer, nullptr) << a->log;
  ASSERT_NE(b->trainer, nullptr) << b->log;
  ASSERT_EQ(a->arena_bytes, b->arena_bytes);
  for (size_t i = 0; i < a->trainer->num_parameters(); ++i)
    EXPECT_EQ(reinterpret_cast<const uint8_t*>(a->trainer->parameter(i).data) - a->arena.data.get(),
              reinterpret_cast<const uint8_t*>(b->trainer->parameter(i).data) - b->arena.data.get())
        << a->trainer->parameter(i).name;
  NpyArray x, y;
  std::string error;
  ASSERT_TRUE(ReadNpy(kDigits.x, &x, &error)) << error;
  ASSERT_TRUE(ReadNpy(kDigits.y, &y, &error)) << error;
  const size_t n = static_cast<size_t>(kDigits.batch), per = n * a->trainer->sample_elems();
  for (size_t step = 0; step < 3; ++step) {
    std::vector<int32_t> labels(y.i64.begin() + step * n, y.i64.begin() + (step + 1) * n);
    float loss_a = 0, loss_b = 0;
    ASSERT_EQ(a->trainer->TrainStep(x.f32.data() + step * per, labels.data(), &loss_a, nullptr),
              Status::kOk);
    ASSERT_EQ(b->trainer->TrainStep(x.f32.data() + step * per, labels.data(), &loss_b, nullptr),
              Status::kOk);
    EXPECT_EQ(loss_a, loss_b) << "step " << step;
  }
  for (size_t i = 0; i < a->trainer->num_parameters(); ++i) {
    const ParameterView pa = a->trainer->parameter(i), pb = b->trainer->parameter(i);
    EXPECT_EQ(std::memcmp(pa.data, pb.data, pa.elems * sizeof(float)), 0) << pa.name;
  }
}

TEST(TrainingPlan, APlanThatLacksABufferIsRefusedNamingIt) {
  const std::vector<uint8_t> efb = Compile(kDigits, true, Trainable::kBatchNormAndHead);
  auto model = fb::UnPackModel(efb.data());
  auto& records = model->training->buffers;
  const auto temp = std::find_if(records.begin(), records.end(), [](const auto& r) {
    return r->kind == fb::TrainingBufferKind::Temp;
  });
  ASSERT_NE(temp, records.end());
  records.erase(temp);
  auto s = Create(Repack(*model), Trainable::kModel);
  EXPECT_EQ(s->trainer, nullptr);
  EXPECT_NE(s->log.find("no planned buffer"), std::string::npos) << s->log;
  EXPECT_NE(s->log.find("temp buffer"), std::string::npos) << s->log;
}

TEST(TrainingPlan, ABufferOfAnotherSizeIsRefusedNamingItsOwner) {
  const std::vector<uint8_t> efb = Compile(kDigits, true, Trainable::kBatchNormAndHead);
  auto model = fb::UnPackModel(efb.data());
  const auto& records = model->training->buffers;
  const auto stats = std::find_if(records.begin(), records.end(), [](const auto& r) {
    return r->kind == fb::TrainingBufferKind::Statistics;
  });
  ASSERT_NE(stats, records.end());
  (*stats)->bytes += 4;
  const std::string bn = model->operators[static_cast<size_t>((*stats)->owner)]->name;
  auto s = Create(Repack(*model), Trainable::kModel);
  EXPECT_EQ(s->trainer, nullptr);
  EXPECT_NE(s->log.find("op '" + bn + "''s statistics buffer"), std::string::npos) << s->log;
}

// A trained model of format version 1 or 2 planned its buffers by enumeration order: refused,
// naming the version, never read with another order.
TEST(TrainingPlan, ATrainingSectionOfAnOlderFormatVersionIsRefusedByName) {
  const std::vector<uint8_t> efb = Compile(kDigits, true, Trainable::kBatchNormAndHead);
  auto model = fb::UnPackModel(efb.data());
  EXPECT_EQ(model->format_version, 3u);
  for (uint32_t old : {1u, 2u}) {
    model->format_version = old;
    auto s = Create(Repack(*model), Trainable::kModel);
    EXPECT_EQ(s->trainer, nullptr);
    EXPECT_NE(s->log.find("training section of model format version " + std::to_string(old)),
              std::string::npos)
        << s->log;
    EXPECT_NE(s->log.find("recompile with 'edgefold compile --train'"), std::string::npos)
        << s->log;
  }
}

}  // namespace
}  // namespace edgefold::tools
