// The trainer's gradients against central finite differences of its own loss, running
// statistics against their formulas, eval mode against the inference interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "edgefold/interpreter.h"
#include "edgefold/trainer.h"
#include "kernels/conv_winograd.h"
#include "testing/efb_builder.h"
#include "testing/run_model.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

fb::OpOptionsUnion ConvOpts(int k, int pad, int group, fb::ActivationKind act = fb::ActivationKind::None) {
  fb::ConvOptionsT o;
  o.kernel = {k, k};
  o.strides = {1, 1};
  o.dilations = {1, 1};
  o.pads = {pad, pad, pad, pad};
  o.group = group;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(act));
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  return u;
}

fb::OpOptionsUnion BnOpts(fb::ActivationKind act) {
  fb::BatchNormOptionsT o;
  o.epsilon = 1e-5f;
  o.activation = std::make_unique<fb::Activation>(MakeActivation(act));
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  return u;
}

int AddBn(EfbBuilder& b, const std::string& name, int x, int channels, const std::vector<int32_t>& shape,
          fb::ActivationKind act, unsigned seed) {
  const int g = b.AddConstant(name + ".gamma", {channels}, RandomVector(channels, seed, 0.5f, 1.5f));
  const int be = b.AddConstant(name + ".beta", {channels}, RandomVector(channels, seed + 1));
  const int m = b.AddConstant(name + ".mean", {channels}, RandomVector(channels, seed + 2));
  const int v = b.AddConstant(name + ".var", {channels}, RandomVector(channels, seed + 3, 0.5f, 2.0f));
  const int y = b.AddTensor(name + ".out", shape);
  b.AddOp(fb::OpType::BatchNorm, name, {x, g, be, m, v}, {y}, BnOpts(act));
  return y;
}

// x[2,3,6,6] → conv3×3 (+conv1_act) → BN+Relu → depthwise 3×3 → BN → + (residual) → maxpool 2
// → SiLU (stand-alone: gradient from its input) → GAP → fc → [2,3]
// winograd_conv1: conv1's W holds Winograd F(2,3) filters [4, 4, Cout, Cin], as 'edgefold
// compile' writes for wide 3×3 convs without --train.
std::vector<uint8_t> SmallCnn(fb::ActivationKind conv1_act = fb::ActivationKind::None, bool winograd_conv1 = false) {
  EfbBuilder b;
  const int x = b.AddInput("x", {2, 3, 6, 6});
  const int c1 = b.AddTensor("conv1.out", {2, 4, 6, 6});
  if (winograd_conv1) {
    kernels::Conv2dShape s;
    s.in_c = 3, s.out_c = 4, s.in_h = s.in_w = s.out_h = s.out_w = 6, s.kh = s.kw = 3, s.pad_top = s.pad_left = 1;
    const int u1 = b.AddConstant("conv1.u", {4, 4, 4, 3}, RandomVector(192, 11, -0.5f, 0.5f));
    fb::OpOptionsUnion o = ConvOpts(3, 1, 1, conv1_act);
    o.AsConvOptions()->packing = fb::WeightPacking::Winograd2x3;
    b.AddOp(fb::OpType::Conv, "conv1", {x, u1}, {c1}, std::move(o), kernels::MakeWinograd23Layout(s).scratch_bytes);
  } else {
    const int w1 = b.AddConstant("conv1.w", {4, 3, 3, 3}, RandomVector(108, 11, -0.5f, 0.5f));
    b.AddOp(fb::OpType::Conv, "conv1", {x, w1}, {c1}, ConvOpts(3, 1, 1, conv1_act), 3 * 9 * 36 * 4);
  }
  const int r1 = AddBn(b, "bn1", c1, 4, {2, 4, 6, 6}, fb::ActivationKind::Relu, 20);
  const int w2 = b.AddConstant("dw.w", {4, 1, 3, 3}, RandomVector(36, 12, -0.5f, 0.5f));
  const int b2 = b.AddConstant("dw.b", {4}, RandomVector(4, 13));
  const int c2 = b.AddTensor("dw.out", {2, 4, 6, 6});
  b.AddOp(fb::OpType::Conv, "dw", {r1, w2, b2}, {c2}, ConvOpts(3, 1, 4));
  const int n2 = AddBn(b, "bn2", c2, 4, {2, 4, 6, 6}, fb::ActivationKind::None, 30);
  const int sum = b.AddTensor("sum", {2, 4, 6, 6});
  fb::BinaryOptionsT add;
  add.kind = fb::BinaryKind::Add;
  add.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion u;
  u.Set(std::move(add));
  b.AddOp(fb::OpType::Binary, "residual", {n2, r1}, {sum}, std::move(u));
  const int pooled = b.AddTensor("pool", {2, 4, 3, 3});
  fb::PoolOptionsT po;
  po.kind = fb::PoolKind::Max;
  po.kernel = {2, 2};
  po.strides = {2, 2};
  po.dilations = {1, 1};
  po.pads = {0, 0, 0, 0};
  u.Set(std::move(po));
  b.AddOp(fb::OpType::Pool, "maxpool", {sum}, {pooled}, std::move(u));
  const int silu = b.AddTensor("silu", {2, 4, 3, 3});
  fb::ActivationOptionsT so;
  so.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::SiLU));
  u.Set(std::move(so));
  b.AddOp(fb::OpType::Activation, "silu", {pooled}, {silu}, std::move(u));
  const int gap = b.AddTensor("gap", {2, 4, 1, 1});
  fb::GlobalPoolOptionsT go;
  go.kind = fb::PoolKind::Average;
  u.Set(go);
  b.AddOp(fb::OpType::GlobalPool, "gap", {silu}, {gap}, std::move(u));
  const int flat = b.AddTensor("flat", {2, 4});
  u.Set(fb::ReshapeOptionsT());
  b.AddOp(fb::OpType::Reshape, "flatten", {gap}, {flat}, std::move(u));
  const int fw = b.AddConstant("fc.w", {4, 3}, RandomVector(12, 14));
  const int fbias = b.AddConstant("fc.b", {3}, RandomVector(3, 15));
  const int logits = b.AddTensor("logits", {2, 3});
  u.Set(fb::GemmOptionsT());
  b.AddOp(fb::OpType::Gemm, "fc", {flat, fw, fbias}, {logits}, std::move(u));
  b.AddOutput(logits);
  return b.Finish();
}

struct TrainerBox {
  AlignedBuffer model;
  AlignedBuffer arena;
  Trainer* trainer = nullptr;
  std::string log;
};

void Collect(void* user, const char* m) { *static_cast<std::string*>(user) += m; }

std::unique_ptr<TrainerBox> MakeTrainer(const std::vector<uint8_t>& bytes, const TrainOptions& t,
                                        Isa isa = Isa::kAuto) {
  size_t need = 0;
  AlignedBuffer model(bytes);
  EXPECT_EQ(RequiredTrainingArenaBytes(model.data(), model.size(), t, &need), Status::kOk);
  auto box = std::unique_ptr<TrainerBox>(new TrainerBox{std::move(model), AlignedBuffer(need)});
  Options o;
  o.isa = isa;
  o.log = Collect;
  o.log_user = &box->log;
  EXPECT_EQ(Trainer::Create(box->model.data(), box->model.size(), box->arena.data(), need, t, o, &box->trainer),
            Status::kOk) << box->log;
  return box;
}

TEST(Trainer, GradientsMatchFiniteDifferences) {
  const std::vector<uint8_t> model = SmallCnn();
  const std::vector<float> x = RandomVector(2 * 3 * 36, 99, -1.5f, 1.5f);
  const std::vector<int32_t> labels = {2, 0};
  for (Isa isa : AvailableIsas()) {
    TrainOptions t;
    t.trainable = Trainable::kAll;
    t.learning_rate = 0;
    t.momentum = 0;
    auto box = MakeTrainer(model, t, isa);
    Trainer& tr = *box->trainer;
    auto loss_at = [&]() {
      float loss = 0;
      EXPECT_EQ(tr.TrainStep(x.data(), labels.data(), &loss, nullptr), Status::kOk);
      return double(loss);
    };
    // Analytic gradient: one step with lr = 1, momentum 0 moves each parameter by −grad.
    std::vector<std::vector<float>> before, grad;
    for (size_t i = 0; i < tr.num_parameters(); ++i)
      before.emplace_back(tr.parameter(i).data, tr.parameter(i).data + tr.parameter(i).elems);
    t.learning_rate = 1;
    tr.set_options(t);
    loss_at();
    for (size_t i = 0; i < tr.num_parameters(); ++i) {
      ParameterView p = tr.parameter(i);
      grad.emplace_back(p.elems);
      for (size_t j = 0; j < p.elems; ++j) {
        grad[i][j] = before[i][j] - p.data[j];
        p.data[j] = before[i][j];
      }
    }
    t.learning_rate = 0;
    tr.set_options(t);
    int checked = 0;
    for (size_t i = 0; i < tr.num_parameters(); ++i) {
      ParameterView p = tr.parameter(i);
      if (!p.trainable) continue;
      for (size_t j = 0; j < p.elems; j += 1 + p.elems / 6) {
        const float keep = p.data[j];
        const double h = 2e-3;
        p.data[j] = keep + float(h);
        const double up = loss_at();
        p.data[j] = keep - float(h);
        const double down = loss_at();
        p.data[j] = keep;
        const double fd = (up - down) / (2 * h);
        EXPECT_NEAR(grad[i][j], fd, 2e-3 + 3e-2 * std::fabs(fd)) << IsaName(isa) << " " << p.name << "[" << j << "]";
        ++checked;
      }
    }
    EXPECT_GT(checked, 20);
  }
}

TEST(Trainer, RunningStatisticsFollowPyTorchAndAlgorithm2) {
  // x[4,3,5] → BN → Reshape[4,15] → fc → [4,2]: the BN sees the raw input.
  EfbBuilder b;
  const int x = b.AddInput("x", {4, 3, 5});
  const int y = AddBn(b, "bn", x, 3, {4, 3, 5}, fb::ActivationKind::None, 40);
  const int flat = b.AddTensor("flat", {4, 15});
  fb::OpOptionsUnion u;
  u.Set(fb::ReshapeOptionsT());
  b.AddOp(fb::OpType::Reshape, "flatten", {y}, {flat}, std::move(u));
  const int fw = b.AddConstant("fc.w", {15, 2}, RandomVector(30, 41));
  const int z = b.AddTensor("z", {4, 2});
  u.Set(fb::GemmOptionsT());
  b.AddOp(fb::OpType::Gemm, "fc", {flat, fw}, {z}, std::move(u));
  b.AddOutput(z);
  const std::vector<uint8_t> model = b.Finish();
  const std::vector<float> old_mean = RandomVector(3, 42), old_var = RandomVector(3, 43, 0.5f, 2.0f);
  const std::vector<float> x1 = RandomVector(60, 50, -3, 5), x2 = RandomVector(60, 51, 1000, 1000.5f);
  auto batch_stats = [](const std::vector<float>& v, int c, double* mean, double* unbiased) {
    double s = 0, ss = 0;
    for (int n = 0; n < 4; ++n) for (int i = 0; i < 5; ++i) s += v[(n * 3 + c) * 5 + i];
    *mean = s / 20;
    for (int n = 0; n < 4; ++n) for (int i = 0; i < 5; ++i) ss += std::pow(v[(n * 3 + c) * 5 + i] - *mean, 2);
    *unbiased = ss / 19;
  };
  auto stat = [](Trainer& tr, const char* name) {
    for (size_t i = 0; i < tr.num_parameters(); ++i)
      if (std::string(tr.parameter(i).name) == name) return tr.parameter(i).data;
    return static_cast<float*>(nullptr);
  };
  TrainOptions t;
  t.bn_momentum = 0.1f;
  auto box = MakeTrainer(model, t);
  ASSERT_EQ(box->trainer->AdaptStatistics(x1.data()), Status::kOk);
  for (int c = 0; c < 3; ++c) {
    double m, v;
    batch_stats(x1, c, &m, &v);
    EXPECT_NEAR(stat(*box->trainer, "bn.mean")[c], 0.9 * old_mean[c] + 0.1 * m, 1e-5);
    EXPECT_NEAR(stat(*box->trainer, "bn.var")[c], 0.9 * old_var[c] + 0.1 * v, 1e-4);
  }
  t.stats_mode = StatsMode::kCumulativeAverage;
  auto cum = MakeTrainer(model, t);
  cum->trainer->ResetStatistics();
  ASSERT_EQ(cum->trainer->AdaptStatistics(x1.data()), Status::kOk);
  ASSERT_EQ(cum->trainer->AdaptStatistics(x2.data()), Status::kOk);
  for (int c = 0; c < 3; ++c) {
    double m1, v1, m2, v2;
    batch_stats(x1, c, &m1, &v1);
    batch_stats(x2, c, &m2, &v2);
    EXPECT_NEAR(stat(*cum->trainer, "bn.mean")[c], (m1 + m2) / 2, 1e-3);
    EXPECT_NEAR(stat(*cum->trainer, "bn.var")[c], (v1 + v2) / 2, 1e-3 * (v1 + v2));
  }
}

TEST(Trainer, EvalModeMatchesTheInterpreterAndTrainingLowersTheLoss) {
  const std::vector<uint8_t> model = SmallCnn();
  const std::vector<float> x = RandomVector(2 * 3 * 36, 7);
  TrainOptions t;
  t.learning_rate = 0.1f;
  t.trainable = Trainable::kBatchNormAndHead;
  auto box = MakeTrainer(model, t);
  std::vector<float> eval(6);
  ASSERT_EQ(box->trainer->Evaluate(x.data(), eval.data()), Status::kOk);
  const RunResult ref = RunModel(model, {x});
  ASSERT_EQ(ref.status, Status::kOk);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(eval[i], ref.outputs[0][i], 1e-5);
  const std::vector<int32_t> labels = {1, 2};
  float first = 0, last = 0;
  for (int step = 0; step < 30; ++step)
    ASSERT_EQ(box->trainer->TrainStep(x.data(), labels.data(), step == 0 ? &first : &last, nullptr), Status::kOk);
  EXPECT_LT(last, 0.5f * first);
  // Refolding in the arena: the folded graph gives the unfolded graph's outputs.
  std::vector<float> unfolded(6), folded(6);
  ASSERT_EQ(box->trainer->Evaluate(x.data(), unfolded.data()), Status::kOk);
  EXPECT_EQ(box->trainer->Refold(), 2u);
  ASSERT_EQ(box->trainer->Evaluate(x.data(), folded.data()), Status::kOk);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(folded[i], unfolded[i], 1e-5 * (1 + std::fabs(unfolded[i])));
  bool differs_from_start = false;
  for (size_t i = 0; i < 6; ++i) differs_from_start |= std::fabs(folded[i] - eval[i]) > 1e-3;
  EXPECT_TRUE(differs_from_start) << "training should have changed the outputs";
  const std::vector<int32_t> bad = {1, 3};
  EXPECT_EQ(box->trainer->TrainStep(x.data(), bad.data(), nullptr, nullptr), Status::kInvalidArgument);
  EXPECT_NE(box->log.find("label 3"), std::string::npos) << box->log;
}

// Trainer::Create's status on `model` in an arena of the size it asks for; the runtime's messages
// are appended to *log. The trainer dies with the arena: only the verdict is kept.
Status CreateTrainer(const AlignedBuffer& model, const TrainOptions& t, std::string* log) {
  size_t need = 0;
  const Status s = RequiredTrainingArenaBytes(model.data(), model.size(), t, &need);
  EXPECT_EQ(s, Status::kOk) << "RequiredTrainingArenaBytes";   // sizing never refuses these models
  if (s != Status::kOk) return s;
  AlignedBuffer arena(need);
  Options o;
  o.log = [](void* user, const char* msg) { *static_cast<std::string*>(user) += msg; };
  o.log_user = log;
  Trainer* trainer = nullptr;
  return Trainer::Create(model.data(), model.size(), arena.data(), need, t, o, &trainer);
}

TEST(Trainer, FoldedModelWithNothingToTrainIsRejected) {
  const TinyModel m = MakeTinyModel();   // no BatchNorm: as 'edgefold compile' without --train
  AlignedBuffer model(m.bytes);
  TrainOptions t;
  std::string log;
  EXPECT_EQ(CreateTrainer(model, t, &log), Status::kInvalidModel);
  EXPECT_NE(log.find("--train"), std::string::npos) << log;
  t.trainable = Trainable::kBatchNormAndHead;   // the head is trainable even without BN
  EXPECT_EQ(CreateTrainer(model, t, &log), Status::kOk) << log;
}

// A fused epilogue keeps only y; SiLU's derivative needs x, so the trainer refuses and says why.
TEST(Trainer, FusedSiluOrHardSwishIsRejectedNamingTheOp) {
  for (fb::ActivationKind act : {fb::ActivationKind::SiLU, fb::ActivationKind::HardSwish}) {
    AlignedBuffer model(SmallCnn(act));
    TrainOptions t;
    t.trainable = Trainable::kAll;
    std::string log;
    EXPECT_EQ(CreateTrainer(model, t, &log), Status::kUnsupportedOp);
    EXPECT_NE(log.find("'conv1'"), std::string::npos) << log;
    EXPECT_NE(log.find("SiLU"), std::string::npos) << log;
  }
}

// Winograd filters are not the weights the gradient is for (nor what Refold writes): the trainer
// refuses the packed conv by name and points at --train.
TEST(Trainer, WinogradPackedConvIsRejectedNamingTheOp) {
  AlignedBuffer model(SmallCnn(fb::ActivationKind::None, /*winograd_conv1=*/true));
  {   // the model itself is valid: the interpreter runs it
    size_t need = 0;
    ASSERT_EQ(RequiredArenaBytes(model.data(), model.size(), &need), Status::kOk);
    AlignedBuffer arena(need);
    Interpreter* interp = nullptr;
    ASSERT_EQ(Interpreter::Create(model.data(), model.size(), arena.data(), need, Options(), &interp), Status::kOk);
  }
  TrainOptions t;
  t.trainable = Trainable::kAll;
  std::string log;
  EXPECT_EQ(CreateTrainer(model, t, &log), Status::kUnsupportedOp);
  EXPECT_NE(log.find("'conv1'"), std::string::npos) << log;
  EXPECT_NE(log.find("Winograd"), std::string::npos) << log;
  EXPECT_NE(log.find("--train"), std::string::npos) << log;
}

}  // namespace
}  // namespace edgefold::testing
