// compile --recompute: the backward re-runs the forward of its segments from checkpoints. The
// updates must be bit for bit those of the plan that keeps every value, the planned arena no
// larger (smaller where the backward is deep), and buffers live at the same step — in either of
// a recomputed value's two lives — never overlapping.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "edgefold/model_generated.h"
#include "edgefold/trainer.h"
#include "planned_buffers.h"
#include "file_io.h"
#include "npy.h"
#include "train_compile.h"
#include "training_compile_util.h"

namespace edgefold::tools {
namespace {

struct Case {
  std::string onnx;
  int batch;
};
const Case kGolden{std::string(EDGEFOLD_TRAINING_DATA) + "/model.onnx", 8};
const Case kDigits{std::string(EDGEFOLD_DIGITS_DIR) + "/digits_cnn.onnx", 10};
const Case kDsCnn{std::string(EDGEFOLD_MODELS_DIR) + "/ds_cnn.onnx", 2};
const Case kMobileNet{std::string(EDGEFOLD_MODELS_DIR) + "/mobilenet_v1_025.onnx", 2};

compiler::TrainingCompileResult Compile(const Case& c, compiler::TrainingOptions t) {
  onnx::ModelProto proto;
  std::string error;
  EXPECT_TRUE(LoadOnnx(c.onnx, &proto, &error)) << error;
  t.batch = c.batch;
  compiler::TrainingCompileResult r =
      compiler::CompileForTraining(proto, compiler::CompileOptions(), t);
  EXPECT_TRUE(r.compiled.ok) << r.compiled.error;
  return r;
}

struct Session {
  AlignedBuffer model, arena;
  size_t arena_bytes = 0;
  Trainer* trainer = nullptr;
  std::string log;
};

std::unique_ptr<Session> Create(const std::vector<uint8_t>& efb) {
  auto s = std::make_unique<Session>();
  s->model = AllocateAligned(efb.size());
  std::memcpy(s->model.data.get(), efb.data(), efb.size());
  Options o;
  o.log = [](void* user, const char* m) { *static_cast<std::string*>(user) += m; };
  o.log_user = &s->log;
  if (RequiredTrainingArenaBytes(s->model.data.get(), efb.size(), TrainOptions(), &s->arena_bytes,
                                 o) != Status::kOk)
    return s;
  s->arena = AllocateAligned(s->arena_bytes);
  if (Trainer::Create(s->model.data.get(), efb.size(), s->arena.data.get(), s->arena_bytes,
                      TrainOptions(), o, &s->trainer) != Status::kOk)
    s->trainer = nullptr;
  return s;
}

size_t Segments(const std::vector<uint8_t>& efb) {
  const auto* seg = fb::GetModel(efb.data())->training()->recompute_segments();
  return seg == nullptr ? 0 : seg->size();
}

// Four steps on the same random batches: losses, parameters and predictions bit for bit.
void ExpectSameTraining(const std::vector<uint8_t>& kept, const std::vector<uint8_t>& recomputed) {
  auto a = Create(kept), b = Create(recomputed);
  ASSERT_NE(a->trainer, nullptr) << a->log;
  ASSERT_NE(b->trainer, nullptr) << b->log;
  const size_t n = a->trainer->batch_size(), per = a->trainer->sample_elems();
  std::mt19937 gen(11);
  std::normal_distribution<float> dist;
  std::vector<float> x(n * per);
  std::vector<int32_t> labels(n);
  for (int step = 0; step < 4; ++step) {
    for (float& v : x) v = dist(gen);
    for (size_t i = 0; i < n; ++i)
      labels[i] = static_cast<int32_t>((i + step) % a->trainer->num_classes());
    float loss_a = 0, loss_b = 0;
    ASSERT_EQ(a->trainer->TrainStep(x.data(), labels.data(), &loss_a, nullptr), Status::kOk);
    ASSERT_EQ(b->trainer->TrainStep(x.data(), labels.data(), &loss_b, nullptr), Status::kOk)
        << b->log;
    EXPECT_EQ(loss_a, loss_b) << "step " << step;
  }
  ASSERT_EQ(a->trainer->num_parameters(), b->trainer->num_parameters());
  for (size_t i = 0; i < a->trainer->num_parameters(); ++i) {
    const ParameterView pa = a->trainer->parameter(i), pb = b->trainer->parameter(i);
    ASSERT_EQ(pa.elems, pb.elems);
    EXPECT_EQ(std::memcmp(pa.data, pb.data, pa.elems * sizeof(float)), 0) << pa.name;
  }
  std::vector<float> out_a(n * a->trainer->num_classes()), out_b(out_a.size());
  ASSERT_EQ(a->trainer->Evaluate(x.data(), out_a.data()), Status::kOk);
  ASSERT_EQ(b->trainer->Evaluate(x.data(), out_b.data()), Status::kOk);
  EXPECT_EQ(out_a, out_b);
}

struct Variant {
  compiler::TrainableSet set;
  compiler::TrainingOptions::Saved saved;
  bool frozen;
};

TEST(Recompute, UpdatesBitForBitWhateverIsTrained) {
  using Set = compiler::TrainableSet;
  using Saved = compiler::TrainingOptions::Saved;
  const Variant variants[] = {{Set::kBatchNorm, Saved::kFloat32, false},
                              {Set::kBatchNormAndHead, Saved::kFloat16, false},
                              {Set::kAll, Saved::kFloat32, false},
                              {Set::kBatchNormAndHead, Saved::kFloat32, true}};
  int split = 0;
  for (const Case* c : {&kGolden, &kDigits, &kDsCnn, &kMobileNet})
    for (const Variant& v : variants) {
      SCOPED_TRACE(c->onnx + " " + compiler::TrainableSetName(v.set) + (v.frozen ? " frozen" : "") +
                   (v.saved == Saved::kFloat16 ? " fp16" : ""));
      compiler::TrainingOptions t;
      t.trainable = v.set;
      t.saved_precision = v.saved;
      t.frozen_statistics = v.frozen;
      const compiler::TrainingCompileResult kept = Compile(*c, t);
      t.recompute = true;
      const compiler::TrainingCompileResult recomputed = Compile(*c, t);
      EXPECT_LE(recomputed.training.arena_bytes, kept.training.arena_bytes);
      split += Segments(recomputed.compiled.model) > 0;
      ExpectSameTraining(kept.compiled.model, recomputed.compiled.model);
    }
  EXPECT_GE(split, 8) << "too few variants were split into segments to test recomputation";
}

// Full-depth BatchNorm training of MobileNetV1 keeps every BN's x̂ (27 layers) for the backward;
// recomputation keeps them one segment at a time.
TEST(Recompute, ADeepBackwardPlansLessMemory) {
  compiler::TrainingOptions t;
  const compiler::TrainingCompileResult kept = Compile(kMobileNet, t);
  t.recompute = true;
  const compiler::TrainingCompileResult recomputed = Compile(kMobileNet, t);
  EXPECT_GT(Segments(recomputed.compiled.model), 0u);
  EXPECT_GT(recomputed.training.recompute_segments, 1);
  EXPECT_LT(recomputed.training.planned_bytes, kept.training.planned_bytes * 3 / 4);
  EXPECT_GE(recomputed.training.planned_bytes, recomputed.training.lower_bound);
  EXPECT_LT(recomputed.training.arena_bytes, kept.training.arena_bytes);
}

// A recomputed value has one buffer per life (the first forward; its recomputation to its
// backward): buffers live at the same step never overlap, and the plan stays within 1.1× of the
// planner's lower bound.
TEST(Recompute, BuffersLiveAtTheSameStepNeverOverlap) {
  for (const Case* c : {&kDsCnn, &kMobileNet}) {
    compiler::TrainingOptions t;
    t.recompute = true;
    const compiler::TrainingCompileResult r = Compile(*c, t);
    const std::vector<uint8_t>& efb = r.compiled.model;
    ASSERT_GT(Segments(efb), 0u);
    EXPECT_LE(r.training.planned_bytes, r.training.lower_bound * 11 / 10) << c->onnx;
    const fb::TrainingSection* s = fb::GetModel(efb.data())->training();
    AlignedBuffer bytes = AllocateAligned(efb.size());
    std::memcpy(bytes.data.get(), efb.data(), efb.size());
    std::vector<TrainingBuffer> buffers;
    auto visit = [](void* user, const TrainingBuffer& b) {
      static_cast<std::vector<TrainingBuffer>*>(user)->push_back(b);
    };
    ASSERT_EQ(ForEachTrainingBuffer(bytes.data.get(), efb.size(), TrainOptions(), visit, &buffers),
              Status::kOk);
    ASSERT_EQ(buffers.size(), s->buffers()->size());
    for (size_t i = 0; i < buffers.size(); ++i) {
      const uint64_t a = PlannedOffsetOf(s, buffers[i]);
      ASSERT_NE(a, UINT64_MAX) << c->onnx << ": buffer " << i << " has no record";
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        const uint64_t b = PlannedOffsetOf(s, buffers[j]);
        const bool memory = a < b + buffers[j].bytes && b < a + buffers[i].bytes;
        const bool live = buffers[i].first_step <= buffers[j].last_step &&
                          buffers[j].first_step <= buffers[i].last_step;
        EXPECT_FALSE(memory && live) << c->onnx << ": buffers " << i << " and " << j;
      }
    }
  }
}

TEST(Recompute, ASegmentListOutOfOrderIsRefused) {
  compiler::TrainingOptions t;
  t.recompute = true;
  auto model = fb::UnPackModel(Compile(kDsCnn, t).compiled.model.data());
  ASSERT_GE(model->training->recompute_segments.size(), 2u);
  std::swap(model->training->recompute_segments[0], model->training->recompute_segments[1]);
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  auto s =
      Create(std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()));
  EXPECT_EQ(s->trainer, nullptr);
  EXPECT_NE(s->log.find("recompute segment 1"), std::string::npos) << s->log;
}

}  // namespace
}  // namespace edgefold::tools
