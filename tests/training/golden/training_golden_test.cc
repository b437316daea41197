// edgefold's training mode equals PyTorch's: one epoch of deterministic SGD (parameters and
// eval outputs) and BN calibration with Algorithm 2 (running statistics).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "edgefold/trainer.h"
#include "file_io.h"
#include "npy.h"
#include "train_compile.h"
#include "training_compile_util.h"

namespace edgefold::tools {
namespace {

const std::string kData = EDGEFOLD_TRAINING_DATA;

std::map<std::string, std::vector<float>> Initializers(const onnx::ModelProto& m) {
  std::map<std::string, std::vector<float>> out;
  for (const auto& t : m.graph().initializer()) {
    std::vector<float> v;
    if (!t.raw_data().empty()) {
      v.resize(t.raw_data().size() / sizeof(float));
      std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
    } else {
      v.assign(t.float_data().begin(), t.float_data().end());
    }
    out[t.name()] = v;
  }
  return out;
}

NpyArray Npy(const std::string& name) {
  NpyArray a;
  std::string error;
  EXPECT_TRUE(ReadNpy(kData + "/" + name, &a, &error)) << error;
  return a;
}

double MaxRelError(const float* got, const std::vector<float>& want) {
  double scale = 1e-6, err = 0;
  for (float w : want) scale = std::max(scale, double(std::fabs(w)));
  for (size_t i = 0; i < want.size(); ++i) err = std::max(err, std::fabs(double(got[i]) - want[i]));
  return err / scale;
}

struct Trained {
  AlignedBuffer model, arena;
  Trainer* trainer = nullptr;
};

std::unique_ptr<Trained> CompileAndCreate(Trainable set) {
  onnx::ModelProto proto;
  std::string error;
  EXPECT_TRUE(LoadOnnx(kData + "/model.onnx", &proto, &error)) << error;
  compiler::CompileOptions options;
  EXPECT_TRUE(ConfigureTrainingCompile(&proto, 8, &options, &error)) << error;
  const compiler::CompileResult r = compiler::CompileModel(proto, options);
  EXPECT_TRUE(r.ok) << r.error;
  auto t = std::make_unique<Trained>();
  t->model = AllocateAligned(r.model.size());
  std::memcpy(t->model.data.get(), r.model.data(), r.model.size());
  TrainOptions opt;
  opt.learning_rate = 0.05f;
  opt.momentum = 0.9f;
  opt.weight_decay = 1e-3f;
  opt.bn_momentum = 0.1f;
  opt.trainable = set;
  size_t bytes = 0;
  EXPECT_EQ(RequiredTrainingArenaBytes(t->model.data.get(), r.model.size(), opt, &bytes),
            Status::kOk);
  t->arena = AllocateAligned(bytes);
  EXPECT_EQ(Trainer::Create(t->model.data.get(), r.model.size(), t->arena.data.get(), bytes, opt,
                            Options(), &t->trainer),
            Status::kOk);
  return t;
}

// Compiled through the library with its training section (a sparse update lives there), and a
// trainer that trains what the model records.
std::unique_ptr<Trained> CompileSectionAndCreate(const compiler::TrainingOptions& training,
                                                 compiler::TrainingReport* report) {
  onnx::ModelProto proto;
  std::string error;
  EXPECT_TRUE(LoadOnnx(kData + "/model.onnx", &proto, &error)) << error;
  const compiler::TrainingCompileResult r =
      compiler::CompileForTraining(proto, compiler::CompileOptions(), training);
  EXPECT_TRUE(r.compiled.ok) << r.compiled.error;
  *report = r.training;
  auto t = std::make_unique<Trained>();
  t->model = AllocateAligned(r.compiled.model.size());
  std::memcpy(t->model.data.get(), r.compiled.model.data(), r.compiled.model.size());
  TrainOptions opt;
  opt.learning_rate = 0.05f;
  opt.momentum = 0.9f;
  opt.weight_decay = 1e-3f;
  opt.bn_momentum = 0.1f;
  const size_t bytes = r.training.arena_bytes;
  t->arena = AllocateAligned(bytes);
  EXPECT_EQ(Trainer::Create(t->model.data.get(), r.compiled.model.size(), t->arena.data.get(),
                            bytes, opt, Options(), &t->trainer),
            Status::kOk);
  return t;
}

void ExpectEpochMatchesPyTorch(std::unique_ptr<Trained> t, const std::string& tag,
                               int min_matched = 12);

void ExpectEpochMatchesPyTorch(Trainable set, const std::string& tag) {
  ExpectEpochMatchesPyTorch(CompileAndCreate(set), tag);
}

void ExpectEpochMatchesPyTorch(std::unique_ptr<Trained> t, const std::string& tag,
                               int min_matched) {
  ASSERT_NE(t->trainer, nullptr);
  Trainer& tr = *t->trainer;
  const NpyArray x = Npy("x.npy"), y = Npy("y.npy");
  const size_t per = 8 * tr.sample_elems();
  for (size_t b = 0; b < 4; ++b) {
    std::vector<int32_t> labels(y.i64.begin() + b * 8, y.i64.begin() + (b + 1) * 8);
    ASSERT_EQ(tr.TrainStep(x.f32.data() + b * per, labels.data(), nullptr, nullptr), Status::kOk);
  }
  onnx::ModelProto after;
  std::string error;
  ASSERT_TRUE(LoadOnnx(kData + "/sgd_" + tag + ".onnx", &after, &error)) << error;
  const auto want = Initializers(after);
  onnx::ModelProto before;
  ASSERT_TRUE(LoadOnnx(kData + "/model.onnx", &before, &error)) << error;
  const auto initial = Initializers(before);
  int matched = 0, trained = 0;
  double worst = 0;
  for (size_t i = 0; i < tr.num_parameters(); ++i) {
    const ParameterView p = tr.parameter(i);
    auto it = want.find(p.name);
    if (it == want.end() || it->second.size() != p.elems) continue;  // e.g. Gemm W stored [K,N]
    if (p.trainable && MaxRelError(p.data, initial.at(p.name)) > 1e-6) ++trained;
    const double err = MaxRelError(p.data, it->second);
    worst = std::max(worst, err);
    EXPECT_LT(err, 1e-4) << tag << ": " << p.name;
    ++matched;
  }
  EXPECT_GE(matched, min_matched) << "too few parameters compared by name";
  EXPECT_GT(trained, 0) << tag << ": no compared parameter moved: the comparison proves nothing";
  const NpyArray eval = Npy("sgd_" + tag + "_eval.npy");
  std::vector<float> out(eval.f32.size());
  for (size_t b = 0; b < 4; ++b)
    ASSERT_EQ(tr.Evaluate(x.f32.data() + b * per, out.data() + b * 8 * tr.num_classes()),
              Status::kOk);
  const double eval_err = MaxRelError(out.data(), eval.f32);
  EXPECT_LT(eval_err, 1e-4) << tag << ": eval outputs";
  std::printf(
      "[%s] %d parameters vs PyTorch (%d trained): max rel error %.3g; eval outputs: %.3g\n",
      tag.c_str(), matched, trained, worst, eval_err);
}

TEST(TrainingGolden, OneEpochOfSgdOnEverythingEqualsPyTorch) {
  ExpectEpochMatchesPyTorch(Trainable::kAll, "all");
}
TEST(TrainingGolden, OneEpochOfSgdOnBatchNormEqualsPyTorch) {
  ExpectEpochMatchesPyTorch(Trainable::kBatchNorm, "bn");
}

// Sparse updates: PyTorch trains with the earlier layers frozen (requires_grad off, BatchNorm
// still in train mode: batch statistics, running statistics updated); the backward stops at
// the earliest trainable layer, so it needs less memory than the full update.
TEST(TrainingGolden, SparseUpdateOfTheLastBatchNormAndHeadEqualsPyTorch) {
  compiler::TrainingOptions training;
  training.batch = 8;
  training.trainable = compiler::TrainableSet::kBatchNormAndHead;
  training.trainable_last = 1;
  compiler::TrainingReport sparse, full;
  auto t = CompileSectionAndCreate(training, &sparse);
  EXPECT_EQ(sparse.trainable_tensors, 4);  // γ, β of the last BN; W, b of the head
  EXPECT_EQ(sparse.first_trained_op, "/head/head.1/BatchNormalization");
  ExpectEpochMatchesPyTorch(std::move(t), "last1", 8);  // + 6 running statistics
  training.trainable_last = 0;
  CompileSectionAndCreate(training, &full);
  EXPECT_LT(sparse.arena_bytes, full.arena_bytes);
  std::printf("bn+head: training arena %llu bytes, last BN + head only %llu\n",
              static_cast<unsigned long long>(full.arena_bytes),
              static_cast<unsigned long long>(sparse.arena_bytes));
}

TEST(TrainingGolden, SparseUpdateFromTheSecondConvEqualsPyTorch) {
  compiler::TrainingOptions training;
  training.batch = 8;
  training.trainable = compiler::TrainableSet::kAll;
  training.train_from = "/features/features.4/Conv";
  compiler::TrainingReport report;
  auto t = CompileSectionAndCreate(training, &report);
  EXPECT_EQ(report.first_trained_op, "/features/features.4/Conv");
  ExpectEpochMatchesPyTorch(std::move(t), "from_conv2", 10);
}

// The model's graph stays at batch 1 (inference); the trainer runs it at the training batch 8
// and the epoch still equals PyTorch's at batch 8.
TEST(TrainingGolden, TrainingAtBatchEightOnABatchOneGraphEqualsPyTorch) {
  compiler::TrainingOptions training;
  training.batch = 8;
  training.trainable = compiler::TrainableSet::kAll;
  compiler::TrainingReport report;
  auto t = CompileSectionAndCreate(training, &report);
  EXPECT_EQ(report.inference_batch, 1);
  EXPECT_EQ(report.batch, 8);
  ASSERT_NE(t->trainer, nullptr);
  EXPECT_EQ(t->trainer->batch_size(), 8u);
  ExpectEpochMatchesPyTorch(std::move(t), "all");
}

// Frozen statistics (--bn-stats frozen): BatchNorm in eval form while γ, β and the head train,
// as PyTorch with its BatchNorms in eval(). Samples are independent, so the trainer runs the
// batch-1 graph eight times per step, accumulating gradients: the arena is the same at any batch.
TEST(TrainingGolden, FrozenStatisticsEqualPyTorchAndTheArenaDoesNotGrowWithTheBatch) {
  compiler::TrainingOptions training;
  training.batch = 8;
  training.trainable = compiler::TrainableSet::kBatchNormAndHead;
  training.frozen_statistics = true;
  compiler::TrainingReport at8, at1, at64;
  auto t = CompileSectionAndCreate(training, &at8);
  ASSERT_NE(t->trainer, nullptr);
  EXPECT_EQ(t->trainer->batch_size(), 8u);
  ExpectEpochMatchesPyTorch(std::move(t), "frozen_bnhead", 8);
  training.batch = 1;
  CompileSectionAndCreate(training, &at1);
  training.batch = 64;
  CompileSectionAndCreate(training, &at64);
  EXPECT_EQ(at1.arena_bytes, at8.arena_bytes);
  EXPECT_EQ(at64.arena_bytes, at8.arena_bytes);
  std::printf("frozen statistics: training arena %llu bytes at batch 1, 8 and 64\n",
              static_cast<unsigned long long>(at8.arena_bytes));
}

// --saved-precision fp16 / bf16: x̂ kept in 16 bits between forward and backward. After every
// step, γ and β differ from the float32 path's by at most 1e-3 of their scale with either format
// (x̂ is rounded so that no fused ReLU's mask flips; saved_precision.h). The training arena's
// lower bound shrinks.
TEST(TrainingGolden, SixteenBitSavedActivationsTrackTheFloat32Path) {
  using Saved = compiler::TrainingOptions::Saved;
  compiler::TrainingOptions training;
  training.batch = 8;
  training.trainable = compiler::TrainableSet::kBatchNorm;
  const NpyArray x = Npy("x.npy"), y = Npy("y.npy");
  for (Saved saved : {Saved::kFloat16, Saved::kBFloat16}) {
    const double bound = 1e-3;
    compiler::TrainingReport fp32_report, report;
    training.saved_precision = Saved::kFloat32;
    auto full = CompileSectionAndCreate(training, &fp32_report);
    training.saved_precision = saved;
    auto half = CompileSectionAndCreate(training, &report);
    ASSERT_NE(half->trainer, nullptr);
    ASSERT_NE(full->trainer, nullptr);
    EXPECT_LT(report.lower_bound, fp32_report.lower_bound);
    const size_t per = 8 * full->trainer->sample_elems();
    double worst = 0;
    for (size_t b = 0; b < 4; ++b) {
      std::vector<int32_t> labels(y.i64.begin() + b * 8, y.i64.begin() + (b + 1) * 8);
      ASSERT_EQ(full->trainer->TrainStep(x.f32.data() + b * per, labels.data(), nullptr, nullptr),
                Status::kOk);
      ASSERT_EQ(half->trainer->TrainStep(x.f32.data() + b * per, labels.data(), nullptr, nullptr),
                Status::kOk);
      for (size_t i = 0; i < full->trainer->num_parameters(); ++i) {
        const ParameterView a = full->trainer->parameter(i), h = half->trainer->parameter(i);
        if (!a.trainable) continue;
        const double err = MaxRelError(h.data, std::vector<float>(a.data, a.data + a.elems));
        worst = std::max(worst, err);
        EXPECT_LT(err, bound) << a.name << " step " << b;
      }
    }
    std::printf(
        "saved %s: γ, β within %.3g of float32's over 4 steps; lower bound %llu vs %llu bytes\n",
        saved == Saved::kFloat16 ? "fp16" : "bf16", worst,
        static_cast<unsigned long long>(report.lower_bound),
        static_cast<unsigned long long>(fp32_report.lower_bound));
  }
}

TEST(TrainingGolden, ASparseUpdateNamesWhatItCannotFind) {
  onnx::ModelProto proto;
  std::string error;
  ASSERT_TRUE(LoadOnnx(kData + "/model.onnx", &proto, &error)) << error;
  compiler::TrainingOptions training;
  training.batch = 8;
  training.train_from = "/no/such/Conv";
  compiler::TrainingCompileResult r =
      compiler::CompileForTraining(proto, compiler::CompileOptions(), training);
  EXPECT_FALSE(r.compiled.ok);
  EXPECT_NE(r.compiled.error.find("'/no/such/Conv'"), std::string::npos) << r.compiled.error;
  training.train_from.clear();
  training.trainable_last = 4;
  r = compiler::CompileForTraining(proto, compiler::CompileOptions(), training);
  EXPECT_FALSE(r.compiled.ok);
  EXPECT_NE(r.compiled.error.find("3 BatchNorm layers"), std::string::npos) << r.compiled.error;
}

TEST(TrainingGolden, CalibrationEqualsPyTorchCumulativeAverage) {
  onnx::ModelProto proto, want_proto;
  std::string error;
  ASSERT_TRUE(LoadOnnx(kData + "/model.onnx", &proto, &error)) << error;
  ASSERT_TRUE(LoadOnnx(kData + "/calib.onnx", &want_proto, &error)) << error;
  compiler::CalibrationReport report;
  const NpyArray drift = Npy("x_drift.npy");
  ASSERT_TRUE(compiler::CalibrateBatchNorm(&proto, compiler::CompileOptions(), drift.f32.data(),
                                           drift.f32.size(), 16, -1.0f, &report, &error))
      << error;
  EXPECT_EQ(report.batchnorms, 3);
  EXPECT_EQ(report.batches, 2u);
  const auto got = Initializers(proto), want = Initializers(want_proto);
  int compared = 0;
  for (const auto& [name, values] : want) {
    if (name.find("running_") == std::string::npos) continue;
    ASSERT_EQ(got.at(name).size(), values.size()) << name;
    const double err = MaxRelError(got.at(name).data(), values);
    EXPECT_LT(err, 1e-5) << name;
    std::printf("calibrated %s: max rel error %.3g\n", name.c_str(), err);
    ++compared;
  }
  EXPECT_EQ(compared, 6);
}

// The trainable set is a property of the compiled model: a Trainer created with the default
// options trains exactly the tensors the training section records, and any other explicit set
// fails naming both (a bn+head model trained without a flag used to keep its head frozen).
std::vector<int32_t> TrainableTensors(const AlignedBuffer& model, size_t bytes, Trainable set,
                                      Status* status, std::string* log) {
  TrainOptions opt;
  opt.trainable = set;
  Options o;
  o.log = [](void* user, const char* m) { *static_cast<std::string*>(user) += m; };
  o.log_user = log;
  size_t arena_bytes = 0;
  std::vector<int32_t> out;
  *status = RequiredTrainingArenaBytes(model.data.get(), bytes, opt, &arena_bytes, o);
  if (*status != Status::kOk) return out;
  AlignedBuffer arena = AllocateAligned(arena_bytes);
  Trainer* trainer = nullptr;
  *status =
      Trainer::Create(model.data.get(), bytes, arena.data.get(), arena_bytes, opt, o, &trainer);
  if (*status != Status::kOk) return out;
  for (size_t i = 0; i < trainer->num_parameters(); ++i)
    if (trainer->parameter(i).trainable) out.push_back(trainer->parameter(i).tensor);
  return out;
}

TEST(TrainingSection, TheModelsTrainableSetIsTheDefaultAndOthersAreRefused) {
  const Trainable sets[] = {Trainable::kBatchNorm, Trainable::kBatchNormAndHead, Trainable::kAll};
  for (Trainable compiled : sets) {
    onnx::ModelProto proto;
    std::string error;
    ASSERT_TRUE(LoadOnnx(kData + "/model.onnx", &proto, &error)) << error;
    compiler::CompileOptions options;
    ASSERT_TRUE(ConfigureTrainingCompile(&proto, 8, &options, &error)) << error;
    compiler::CompileResult r = compiler::CompileModel(proto, options);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(AddTrainingSection(&r.model, compiled, &error)) << error;
    AlignedBuffer model = AllocateAligned(r.model.size());
    std::memcpy(model.data.get(), r.model.data(), r.model.size());

    Status status;
    std::string log;
    const std::vector<int32_t> by_default =
        TrainableTensors(model, r.model.size(), Trainable::kModel, &status, &log);
    ASSERT_EQ(status, Status::kOk) << log;
    const std::vector<int32_t> explicit_same =
        TrainableTensors(model, r.model.size(), compiled, &status, &log);
    ASSERT_EQ(status, Status::kOk) << log;
    EXPECT_EQ(by_default, explicit_same) << TrainableName(compiled);
    for (Trainable other : sets) {
      if (other == compiled) continue;
      log.clear();
      TrainableTensors(model, r.model.size(), other, &status, &log);
      EXPECT_EQ(status, Status::kInvalidArgument)
          << TrainableName(other) << " on " << TrainableName(compiled);
      EXPECT_NE(log.find(std::string("'") + TrainableName(other) + "'"), std::string::npos) << log;
      EXPECT_NE(log.find(std::string("(") + TrainableName(compiled) + ","), std::string::npos)
          << log;
    }
  }
}

TEST(TrainingSection, AModelWithoutOneTrainsBatchNorm) {
  auto t = CompileAndCreate(Trainable::kModel);
  ASSERT_NE(t->trainer, nullptr);
  size_t trainable = 0;
  for (size_t i = 0; i < t->trainer->num_parameters(); ++i)
    trainable += t->trainer->parameter(i).trainable;
  EXPECT_EQ(trainable, 6u);  // γ and β of the model's three BatchNorms
}

}  // namespace
}  // namespace edgefold::tools
