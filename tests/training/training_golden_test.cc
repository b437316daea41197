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
  EXPECT_EQ(RequiredTrainingArenaBytes(t->model.data.get(), r.model.size(), opt, &bytes), Status::kOk);
  t->arena = AllocateAligned(bytes);
  EXPECT_EQ(Trainer::Create(t->model.data.get(), r.model.size(), t->arena.data.get(), bytes, opt, Options(),
                            &t->trainer), Status::kOk);
  return t;
}

void ExpectEpochMatchesPyTorch(Trainable set, const std::string& tag) {
  auto t = CompileAndCreate(set);
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
  int matched = 0;
  double worst = 0;
  for (size_t i = 0; i < tr.num_parameters(); ++i) {
    const ParameterView p = tr.parameter(i);
    auto it = want.find(p.name);
    if (it == want.end() || it->second.size() != p.elems) continue;   // e.g. Gemm W stored [K,N]
    const double err = MaxRelError(p.data, it->second);
    worst = std::max(worst, err);
    EXPECT_LT(err, 1e-4) << tag << ": " << p.name;
    ++matched;
  }
  EXPECT_GE(matched, 12) << "too few parameters compared by name";
  const NpyArray eval = Npy("sgd_" + tag + "_eval.npy");
  std::vector<float> out(eval.f32.size());
  for (size_t b = 0; b < 4; ++b)
    ASSERT_EQ(tr.Evaluate(x.f32.data() + b * per, out.data() + b * 8 * tr.num_classes()), Status::kOk);
  const double eval_err = MaxRelError(out.data(), eval.f32);
  EXPECT_LT(eval_err, 1e-4) << tag << ": eval outputs";
  std::printf("[%s] %d parameters vs PyTorch: max rel error %.3g; eval outputs: %.3g\n", tag.c_str(), matched,
              worst, eval_err);
}

TEST(TrainingGolden, OneEpochOfSgdOnEverythingEqualsPyTorch) { ExpectEpochMatchesPyTorch(Trainable::kAll, "all"); }
TEST(TrainingGolden, OneEpochOfSgdOnBatchNormEqualsPyTorch) { ExpectEpochMatchesPyTorch(Trainable::kBatchNorm, "bn"); }

TEST(TrainingGolden, CalibrationEqualsPyTorchCumulativeAverage) {
  onnx::ModelProto proto, want_proto;
  std::string error;
  ASSERT_TRUE(LoadOnnx(kData + "/model.onnx", &proto, &error)) << error;
  ASSERT_TRUE(LoadOnnx(kData + "/calib.onnx", &want_proto, &error)) << error;
  CalibrationReport report;
  ASSERT_TRUE(CalibrateBatchNorm(&proto, compiler::CompileOptions(), kData + "/x_drift.npy", 16, -1.0f,
                                 &report, &error)) << error;
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

}  // namespace
}  // namespace edgefold::tools
