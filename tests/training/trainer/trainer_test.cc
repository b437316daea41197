// The trainer's gradients against central finite differences of its own loss, running
// statistics against their formulas, eval mode against the inference interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "edgefold/interpreter.h"
#include "edgefold/trainer.h"
#include "kernels/conv/conv_expand.h"
#include "kernels/conv/conv_winograd.h"
#include "testing/efb_builder.h"
#include "testing/run_model.h"
#include "testing/runtime_session.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

// x[2,3,6,6] → conv3×3 (+conv1_act) → BN+Relu → depthwise 3×3 → BN → + (residual) → maxpool 2
// → SiLU (stand-alone: gradient from its input) → GAP → fc → [2,3]
// winograd_conv1: conv1's W holds Winograd F(2,3) filters [4, 4, Cout, Cin], as 'edgefold
// compile' writes for wide 3×3 convs without --train.
// depth_space: SpaceToDepth (DCR order) then DepthToSpace CRD before the pool, a net
// permutation of channels and 2×2 block positions whose backward both ops must get right.
// `standalone` replaces the SiLU and `residual` the Add; split_conv1_act: conv1_act as its own
// Activation op after conv1; expanded_dw: the depthwise conv reads a fused 1×1 expansion (inputs
// 4 and 5), as 'edgefold compile' writes for inverted residuals without --train.
std::vector<uint8_t> SmallCnn(fb::ActivationKind conv1_act = fb::ActivationKind::None,
                              bool winograd_conv1 = false, bool depth_space = false,
                              fb::ActivationKind standalone = fb::ActivationKind::SiLU,
                              fb::BinaryKind residual = fb::BinaryKind::Add,
                              bool split_conv1_act = false, bool expanded_dw = false) {
  EfbBuilder b;
  const int x = b.AddInput("x", {2, 3, 6, 6});
  const int c1 = b.AddTensor("conv1.out", {2, 4, 6, 6});
  if (winograd_conv1) {
    kernels::Conv2dShape s;
    s.in_c = 3, s.out_c = 4, s.in_h = s.in_w = s.out_h = s.out_w = 6, s.kh = s.kw = 3,
    s.pad_top = s.pad_left = 1;
    const int u1 = b.AddConstant("conv1.u", {4, 4, 4, 3}, RandomVector(192, 11, -0.5f, 0.5f));
    fb::OpOptionsUnion o = ConvOptions(3, 1, 1, conv1_act);
    o.AsConvOptions()->packing = fb::WeightPacking::Winograd2x3;
    b.AddOp(fb::OpType::Conv, "conv1", {x, u1}, {c1}, std::move(o),
            kernels::MakeWinogradLayout(s, 2).scratch_bytes);
  } else {
    const int w1 = b.AddConstant("conv1.w", {4, 3, 3, 3}, RandomVector(108, 11, -0.5f, 0.5f));
    if (split_conv1_act) {
      const int z = b.AddTensor("conv1.z", {2, 4, 6, 6});
      b.AddOp(fb::OpType::Conv, "conv1", {x, w1}, {z},
              ConvOptions(3, 1, 1, fb::ActivationKind::None), 3 * 9 * 36 * 4);
      fb::ActivationOptionsT ao;
      ao.activation = std::make_unique<fb::Activation>(MakeActivation(conv1_act));
      fb::OpOptionsUnion u;
      u.Set(std::move(ao));
      b.AddOp(fb::OpType::Activation, "act1", {z}, {c1}, std::move(u));
    } else {
      b.AddOp(fb::OpType::Conv, "conv1", {x, w1}, {c1}, ConvOptions(3, 1, 1, conv1_act),
              3 * 9 * 36 * 4);
    }
  }
  const int r1 = AddBatchNorm(b, "bn1", c1, 4, {2, 4, 6, 6}, fb::ActivationKind::Relu, 20);
  const int w2 = b.AddConstant("dw.w", {4, 1, 3, 3}, RandomVector(36, 12, -0.5f, 0.5f));
  const int b2 = b.AddConstant("dw.b", {4}, RandomVector(4, 13));
  const int c2 = b.AddTensor("dw.out", {2, 4, 6, 6});
  if (expanded_dw) {
    kernels::Conv2dShape s;
    s.in_c = s.out_c = s.group = 4, s.in_h = s.in_w = s.out_h = s.out_w = 6, s.kh = s.kw = 3;
    s.pad_top = s.pad_left = 1;
    const int we = b.AddConstant("dw.expand", {4, 4, 1, 1}, RandomVector(16, 14, -0.5f, 0.5f));
    b.AddOp(fb::OpType::Conv, "dw", {r1, w2, b2, -1, we}, {c2},
            ConvOptions(3, 1, 4, fb::ActivationKind::None),
            kernels::MakeExpandBands(s, 2).scratch_bytes);
  } else {
    b.AddOp(fb::OpType::Conv, "dw", {r1, w2, b2}, {c2},
            ConvOptions(3, 1, 4, fb::ActivationKind::None));
  }
  const int n2 = AddBatchNorm(b, "bn2", c2, 4, {2, 4, 6, 6}, fb::ActivationKind::None, 30);
  const int sum = b.AddTensor("sum", {2, 4, 6, 6});
  fb::BinaryOptionsT add;
  add.kind = residual;
  add.activation = std::make_unique<fb::Activation>(MakeActivation(fb::ActivationKind::Relu));
  fb::OpOptionsUnion u;
  u.Set(std::move(add));
  b.AddOp(fb::OpType::Binary, "residual", {n2, r1}, {sum}, std::move(u));
  int pool_in = sum;
  if (depth_space) {  // [2,4,6,6] → SpaceToDepth → [2,16,3,3] → DepthToSpace CRD → [2,4,6,6]
    const int depth = b.AddTensor("s2d", {2, 16, 3, 3});
    fb::SpaceToDepthOptionsT s2d;
    s2d.blocksize = 2;
    fb::OpOptionsUnion su;
    su.Set(std::move(s2d));
    b.AddOp(fb::OpType::SpaceToDepth, "s2d", {sum}, {depth}, std::move(su));
    pool_in = b.AddTensor("d2s", {2, 4, 6, 6});
    fb::DepthToSpaceOptionsT d2s;
    d2s.blocksize = 2;
    d2s.crd = true;
    fb::OpOptionsUnion du;
    du.Set(std::move(d2s));
    b.AddOp(fb::OpType::DepthToSpace, "d2s", {depth}, {pool_in}, std::move(du));
  }
  const int pooled = b.AddTensor("pool", {2, 4, 3, 3});
  fb::PoolOptionsT po;
  po.kind = fb::PoolKind::Max;
  po.kernel = {2, 2};
  po.strides = {2, 2};
  po.dilations = {1, 1};
  po.pads = {0, 0, 0, 0};
  u.Set(std::move(po));
  b.AddOp(fb::OpType::Pool, "maxpool", {pool_in}, {pooled}, std::move(u));
  const int silu = b.AddTensor("silu", {2, 4, 3, 3});
  fb::ActivationOptionsT so;
  so.activation = std::make_unique<fb::Activation>(MakeActivation(standalone));
  u.Set(std::move(so));
  b.AddOp(fb::OpType::Activation, "silu", {pooled}, {silu}, std::move(u));
  AddClassifierHead(b, silu, 2, 4, RandomVector(12, 14), RandomVector(3, 15),
                    {"gap", "flat", "logits"});
  return b.Finish();
}

// The trainer of `bytes` (created in an arena of the size it asks for).
std::unique_ptr<TrainerSession> MakeTrainer(const std::vector<uint8_t>& bytes,
                                            const TrainOptions& t, Isa isa = Isa::kAuto) {
  std::unique_ptr<TrainerSession> s = CreateTrainer(bytes, t, isa);
  EXPECT_EQ(s->status, Status::kOk) << s->log;
  return s;
}

const std::vector<float>& TrainInput() {
  static const std::vector<float> x = RandomVector(2 * 3 * 36, 99, -1.5f, 1.5f);
  return x;
}
const int32_t kTrainLabels[2] = {2, 0};

// The trainer's gradient of every parameter: one step with lr = 1, momentum 0 moves each
// parameter by −grad; the parameters are put back afterwards.
std::vector<std::vector<float>> AnalyticGradients(Trainer& tr, TrainOptions t) {
  std::vector<std::vector<float>> before, grad;
  for (size_t i = 0; i < tr.num_parameters(); ++i)
    before.emplace_back(tr.parameter(i).data, tr.parameter(i).data + tr.parameter(i).elems);
  t.learning_rate = 1;
  t.momentum = 0;
  tr.set_options(t);
  float loss = 0;
  EXPECT_EQ(tr.TrainStep(TrainInput().data(), kTrainLabels, &loss, nullptr), Status::kOk);
  for (size_t i = 0; i < tr.num_parameters(); ++i) {
    ParameterView p = tr.parameter(i);
    grad.emplace_back(p.elems);
    for (size_t j = 0; j < p.elems; ++j) {
      grad[i][j] = before[i][j] - p.data[j];
      p.data[j] = before[i][j];
    }
  }
  return grad;
}

void ExpectGradientsMatchFiniteDifferences(const std::vector<uint8_t>& model,
                                           const std::string& what) {
  SCOPED_TRACE(what);
  const std::vector<float>& x = TrainInput();
  for (Isa isa : AvailableIsas()) {
    TrainOptions t;
    t.trainable = Trainable::kAll;
    t.learning_rate = 0;
    t.momentum = 0;
    auto box = MakeTrainer(model, t, isa);
    Trainer& tr = *box->trainer;
    auto loss_at = [&]() {
      float loss = 0;
      EXPECT_EQ(tr.TrainStep(x.data(), kTrainLabels, &loss, nullptr), Status::kOk);
      return double(loss);
    };
    const std::vector<std::vector<float>> grad = AnalyticGradients(tr, t);
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
        EXPECT_NEAR(grad[i][j], fd, 2e-3 + 3e-2 * std::fabs(fd))
            << IsaName(isa) << " " << p.name << "[" << j << "]";
        ++checked;
      }
    }
    EXPECT_GT(checked, 20);
  }
}

TEST(Trainer, GradientsMatchFiniteDifferences) {
  for (bool depth_space : {false, true})
    ExpectGradientsMatchFiniteDifferences(SmallCnn(fb::ActivationKind::None, false, depth_space),
                                          depth_space ? "with DepthToSpace/SpaceToDepth" : "plain");
}

// The unary math kinds stand-alone (gradient from the input) and Min/Max as the residual.
TEST(Trainer, UnaryMathAndMinMaxGradientsMatchFiniteDifferences) {
  using K = fb::ActivationKind;
  for (K k : {K::Tanh, K::Gelu, K::Exp, K::Erf, K::Neg, K::Abs})
    ExpectGradientsMatchFiniteDifferences(SmallCnn(K::None, false, false, k),
                                          fb::EnumNameActivationKind(k));
  ExpectGradientsMatchFiniteDifferences(
      SmallCnn(K::None, false, false, K::SiLU, fb::BinaryKind::Max), "Max");
  ExpectGradientsMatchFiniteDifferences(
      SmallCnn(K::None, false, false, K::SiLU, fb::BinaryKind::Min), "Min");
}

// A Tanh or Sigmoid fused into conv1 (gradient from its output y) against the same activation
// as its own op (gradient from its input x): the same function, so the same gradients. (Finite
// differences are no judge here: the saturating activation shrinks conv1's output spread, the
// training-mode BN after it scales a step in W up by 1/σ, and the ReLU/max-pool kinks it then
// crosses bias the difference quotient by ~10 % at h = 2e-3, less as h shrinks.)
TEST(Trainer, FusedTanhGradientFromOutputMatchesStandAlone) {
  using K = fb::ActivationKind;
  for (K k : {K::Tanh, K::Sigmoid}) {
    TrainOptions t;
    t.trainable = Trainable::kAll;
    auto fused = MakeTrainer(SmallCnn(k), t);
    auto split = MakeTrainer(
        SmallCnn(k, false, false, K::SiLU, fb::BinaryKind::Add, /*split_conv1_act=*/true), t);
    const auto a = AnalyticGradients(*fused->trainer, t), b = AnalyticGradients(*split->trainer, t);
    ASSERT_EQ(a.size(), b.size());
    int compared = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].size(), b[i].size());
      for (size_t j = 0; j < a[i].size(); ++j, ++compared)
        EXPECT_NEAR(a[i][j], b[i][j], 1e-5 + 1e-4 * std::fabs(b[i][j]))
            << fb::EnumNameActivationKind(k) << " parameter " << i << "[" << j << "]";
    }
    EXPECT_GT(compared, 100);
  }
}

TEST(Trainer, RunningStatisticsFollowPyTorchAndAlgorithm2) {
  // x[4,3,5] → BN → Reshape[4,15] → fc → [4,2]: the BN sees the raw input.
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
  const std::vector<uint8_t> model = b.Finish();
  const std::vector<float> old_mean = RandomVector(3, 42),
                           old_var = RandomVector(3, 43, 0.5f, 2.0f);
  const std::vector<float> x1 = RandomVector(60, 50, -3, 5),
                           x2 = RandomVector(60, 51, 1000, 1000.5f);
  auto batch_stats = [](const std::vector<float>& v, int c, double* mean, double* unbiased) {
    double s = 0, ss = 0;
    for (int n = 0; n < 4; ++n)
      for (int i = 0; i < 5; ++i) s += v[(n * 3 + c) * 5 + i];
    *mean = s / 20;
    for (int n = 0; n < 4; ++n)
      for (int i = 0; i < 5; ++i) ss += std::pow(v[(n * 3 + c) * 5 + i] - *mean, 2);
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
    ASSERT_EQ(box->trainer->TrainStep(x.data(), labels.data(), step == 0 ? &first : &last, nullptr),
              Status::kOk);
  EXPECT_LT(last, 0.5f * first);
  // Refolding in the arena: the folded graph gives the unfolded graph's outputs.
  std::vector<float> unfolded(6), folded(6);
  ASSERT_EQ(box->trainer->Evaluate(x.data(), unfolded.data()), Status::kOk);
  EXPECT_EQ(box->trainer->Refold(), 2u);
  ASSERT_EQ(box->trainer->Evaluate(x.data(), folded.data()), Status::kOk);
  for (size_t i = 0; i < 6; ++i)
    EXPECT_NEAR(folded[i], unfolded[i], 1e-5 * (1 + std::fabs(unfolded[i])));
  bool differs_from_start = false;
  for (size_t i = 0; i < 6; ++i) differs_from_start |= std::fabs(folded[i] - eval[i]) > 1e-3;
  EXPECT_TRUE(differs_from_start) << "training should have changed the outputs";
  const std::vector<int32_t> bad = {1, 3};
  EXPECT_EQ(box->trainer->TrainStep(x.data(), bad.data(), nullptr, nullptr),
            Status::kInvalidArgument);
  EXPECT_NE(box->log.find("label 3"), std::string::npos) << box->log;
}

// The status of sizing, then creating, a trainer on `model` (RequiredTrainingArenaBytes refuses
// what Create would, with the same message); the runtime's messages are appended to *log. The
// trainer dies with the arena: only the verdict is kept.
Status CreateStatus(const std::vector<uint8_t>& model, const TrainOptions& t, std::string* log) {
  const std::unique_ptr<TrainerSession> s = CreateTrainer(model, t);
  *log += s->log;
  return s->status;
}

// With every parameter trainable, Trainer::Create refuses `model` as unsupported and its message
// names each of `words`.
void ExpectRefusedNaming(const std::vector<uint8_t>& model, const std::vector<std::string>& words) {
  TrainOptions t;
  t.trainable = Trainable::kAll;
  std::string log;
  EXPECT_EQ(CreateStatus(model, t, &log), Status::kUnsupportedOp);
  for (const std::string& word : words) EXPECT_NE(log.find(word), std::string::npos) << log;
}

// A keyword-spotter tail: GRU or LSTM (X [1, 1, 3], hidden 2) → its final state → classifier.
// The recurrent op has no backward: refused by name (the Expand after it runs; it is the
// nearest op without a backward only when no recurrent op precedes it).
TEST(Trainer, RecurrentOpsAreRejectedNamingTheOp) {
  for (fb::RnnCell cell : {fb::RnnCell::Gru, fb::RnnCell::Lstm}) {
    const int32_t g = cell == fb::RnnCell::Lstm ? 8 : 6;
    EfbBuilder b;
    const int x =
        b.AddInput("x", {1, 1, 3});  // one time step: the trainer reads dim 0 as the batch
    const int w = b.AddConstant("rnn.w", {1, 3, g}, RandomVector(size_t(3 * g), 60));
    const int r = b.AddConstant("rnn.r", {1, 2, g}, RandomVector(size_t(2 * g), 61));
    const int bias = b.AddConstant("rnn.b", {1, 2, g}, RandomVector(size_t(2 * g), 62));
    const int h = b.AddTensor("h", {1, 1, 2});
    fb::RnnOptionsT o;
    o.cell = cell;
    o.hidden_size = 2;
    fb::OpOptionsUnion u;
    u.Set(std::move(o));
    b.AddOp(fb::OpType::Rnn, "rnn", {x, w, r, bias}, {h}, std::move(u),
            uint64_t((3 * g + 2) * 4));  // GRU: P, gh, r⊙h; LSTM: P, c
    const int wide = b.AddTensor("wide", {1, 2, 2});
    u.Set(fb::ExpandOptionsT());
    b.AddOp(fb::OpType::Expand, "widen", {h}, {wide}, std::move(u));
    const int flat = b.AddTensor("flat", {1, 4});
    u.Set(fb::ReshapeOptionsT());
    b.AddOp(fb::OpType::Reshape, "flatten", {wide}, {flat}, std::move(u));
    const int fw = b.AddConstant("fc.w", {4, 3}, RandomVector(12, 63));
    const int z = b.AddTensor("z", {1, 3});
    u.Set(fb::GemmOptionsT());
    b.AddOp(fb::OpType::Gemm, "fc", {flat, fw}, {z}, std::move(u));
    b.AddOutput(z);
    const std::vector<uint8_t> model = b.Finish();
    ASSERT_EQ(CreateInterpreter(model)->status, Status::kOk);  // the model itself runs
    ExpectRefusedNaming(model, {"'rnn'", cell == fb::RnnCell::Lstm ? "LSTM" : "GRU"});
  }
}

TEST(Trainer, FoldedModelWithNothingToTrainIsRejected) {
  const std::vector<uint8_t> model =
      MakeTinyModel().bytes;  // no BatchNorm: as 'edgefold compile' without --train
  TrainOptions t;
  std::string log;
  EXPECT_EQ(CreateStatus(model, t, &log), Status::kInvalidModel);
  EXPECT_NE(log.find("--train"), std::string::npos) << log;
  t.trainable = Trainable::kBatchNormAndHead;  // the head is trainable even without BN
  EXPECT_EQ(CreateStatus(model, t, &log), Status::kOk) << log;
}

// A fused epilogue keeps only y; SiLU's derivative needs x, so the trainer refuses and says why.
TEST(Trainer, FusedSiluOrHardSwishIsRejectedNamingTheOp) {
  for (fb::ActivationKind act : {fb::ActivationKind::SiLU, fb::ActivationKind::HardSwish,
                                 fb::ActivationKind::Gelu, fb::ActivationKind::Abs})
    ExpectRefusedNaming(SmallCnn(act), {"'conv1'", "SiLU", "Gelu"});
}

// Winograd filters are not the weights the gradient is for (nor what Refold writes): the trainer
// refuses the packed conv by name and points at --train.
TEST(Trainer, WinogradPackedConvIsRejectedNamingTheOp) {
  const std::vector<uint8_t> model = SmallCnn(fb::ActivationKind::None, /*winograd_conv1=*/true);
  ASSERT_EQ(CreateInterpreter(model)->status,
            Status::kOk);  // the model itself is valid: the interpreter runs it
  ExpectRefusedNaming(model, {"'conv1'", "Winograd", "--train"});
}

// A fused expansion's t is never stored, so there is nothing to take its gradient through.
TEST(Trainer, FusedExpansionIsRejectedNamingTheOp) {
  const std::vector<uint8_t> model =
      SmallCnn(fb::ActivationKind::None, false, false, fb::ActivationKind::SiLU,
               fb::BinaryKind::Add, false, /*expanded_dw=*/true);
  ASSERT_EQ(CreateInterpreter(model)->status, Status::kOk);
  ExpectRefusedNaming(model, {"'dw'", "expansion", "--train"});
}

// A decoder-style model: ConvTranspose (2×2, stride 2) → BatchNorm → classifier head. The
// ConvTranspose has no backward: the trainer refuses it by name rather than train around it.
TEST(Trainer, ConvTransposeIsRejectedNamingTheOp) {
  EfbBuilder b;
  const int x = b.AddInput("x", {2, 3, 3, 3});
  const int w = b.AddConstant("up.w", {1, 4, 2, 2, 3}, RandomVector(48, 16, -0.5f, 0.5f));
  const int up = b.AddTensor("up.out", {2, 4, 6, 6});
  fb::ConvTransposeOptionsT o;
  o.kernel = {2, 2};
  o.strides = {2, 2};
  o.dilations = {1, 1};
  o.pads = {0, 0, 0, 0};
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  b.AddOp(fb::OpType::ConvTranspose, "up", {x, w}, {up}, std::move(u), 4 * 4 * 9 * 4);
  const int bn = AddBatchNorm(b, "bn", up, 4, {2, 4, 6, 6}, fb::ActivationKind::Relu, 40);
  AddClassifierHead(b, bn, 2, 4, RandomVector(12, 17), RandomVector(3, 18),
                    {"gap", "flat", "logits"});
  const std::vector<uint8_t> model = b.Finish();
  ASSERT_EQ(CreateInterpreter(model)->status, Status::kOk);  // the model itself runs
  ExpectRefusedNaming(model, {"'up'", "ConvTranspose"});
}

}  // namespace
}  // namespace edgefold::testing

namespace edgefold::testing {
namespace {

// A training batch larger than the graph's: the trainer scales every value's leading dim, so a
// graph whose ops mix samples is refused, naming the op (here a Transpose moving dim 0).
std::vector<uint8_t> WithTrainingBatch(const std::vector<uint8_t>& efb, int batch) {
  auto m = fb::UnPackModel(efb.data());
  m->format_version = 3;  // a training section is read from version 3 on
  m->training = std::make_unique<fb::TrainingSectionT>();
  m->training->batch_size = batch;
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, m.get()));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(Trainer, ATrainingBatchOverAGraphThatMixesSamplesIsRefusedNamingTheOp) {
  for (bool transpose_batch : {false, true}) {
    EfbBuilder b;
    const int x = b.AddInput("x", {1, 1, 4});
    const int t = b.AddTensor("t", {1, 1, 4});
    fb::OpOptionsUnion u;
    fb::TransposeOptionsT perm;
    perm.perm = transpose_batch ? std::vector<int32_t>{1, 0, 2} : std::vector<int32_t>{0, 1, 2};
    u.Set(perm);
    b.AddOp(fb::OpType::Transpose, "swap", {x}, {t}, std::move(u));
    const int flat = b.AddTensor("flat", {1, 4});
    u.Set(fb::ReshapeOptionsT());
    b.AddOp(fb::OpType::Reshape, "flatten", {t}, {flat}, std::move(u));
    const int w = b.AddConstant("fc.w", {4, 2}, RandomVector(8, 3));
    const int z = b.AddTensor("z", {1, 2});
    u.Set(fb::GemmOptionsT());
    b.AddOp(fb::OpType::Gemm, "fc", {flat, w}, {z}, std::move(u));
    b.AddOutput(z);
    const std::vector<uint8_t> model = WithTrainingBatch(b.Finish(), 4);
    TrainOptions opt;
    opt.trainable = Trainable::kAll;
    auto s = CreateTrainer(model, opt, Isa::kAuto);
    if (!transpose_batch) {
      ASSERT_EQ(s->status, Status::kOk) << s->log;
      EXPECT_EQ(s->trainer->batch_size(), 4u);
      continue;
    }
    const std::string& log = s->log;
    EXPECT_EQ(s->status, Status::kInvalidModel);
    EXPECT_NE(log.find("'swap'"), std::string::npos) << log;
    EXPECT_NE(log.find("batch 4"), std::string::npos) << log;
  }
}

}  // namespace
}  // namespace edgefold::testing

namespace edgefold::testing {
namespace {

// StreamStep adapts the running statistics sample by sample (the logits it writes are those
// of the adapted graph), ResetStream returns them to the model's bit for bit, a window whose
// entropy rises resets, and out-of-range options are refused naming the field.
TEST(Trainer, StreamStepAdaptsStatisticsAndResetsToTheDeployedOnes) {
  TrainOptions t;
  auto s = MakeTrainer(SmallCnn(), t);
  ASSERT_NE(s->trainer, nullptr);
  Trainer& tr = *s->trainer;
  std::vector<std::vector<float>> deployed;
  for (size_t i = 0; i < tr.num_parameters(); ++i)
    if (!tr.parameter(i).trainable)
      deployed.emplace_back(tr.parameter(i).data, tr.parameter(i).data + tr.parameter(i).elems);
  ASSERT_EQ(deployed.size(), 4u);  // mean and variance of two BatchNorms
  auto statistics_moved = [&] {
    size_t j = 0;
    bool moved = false;
    for (size_t i = 0; i < tr.num_parameters(); ++i)
      if (!tr.parameter(i).trainable)
        moved |= !std::equal(deployed[j].begin(), deployed[j].end(), tr.parameter(i).data), ++j;
    return moved;
  };
  std::vector<float> x =
      RandomVector(tr.batch_size() * tr.sample_elems(), 5, 2.0f, 4.0f);  // shifted input
  std::vector<float> logits(tr.batch_size() * tr.num_classes()), eval(logits.size());
  StreamOptions o;
  StreamReport report;
  ASSERT_EQ(tr.StreamStep(x.data(), logits.data(), o, &report), Status::kOk);
  EXPECT_TRUE(statistics_moved());
  EXPECT_GE(report.entropy, 0.0f);
  EXPECT_LE(report.entropy, 1.0f);
  EXPECT_EQ(report.samples, tr.batch_size());
  // With the prior off, the logits are the eval graph's on the adapted statistics.
  o.prior = 0.0f;
  ASSERT_EQ(tr.StreamStep(x.data(), logits.data(), o, &report), Status::kOk);
  ASSERT_EQ(tr.Evaluate(x.data(), eval.data()), Status::kOk);
  for (size_t i = 0; i < eval.size(); ++i)
    EXPECT_NEAR(eval[i], logits[i], 1e-5f + 1e-4f * std::fabs(eval[i])) << i;
  tr.ResetStream();
  EXPECT_FALSE(statistics_moved());

  // A window more uncertain than the first one triggers a reset. With prior 1 the outputs use
  // the deployed statistics only, so each input's entropy is fixed: take the most and the least
  // certain of a few inputs.
  o.prior = 1.0f;
  o.window = static_cast<uint32_t>(tr.batch_size());  // one window per step
  o.entropy_rise = 0.0f;
  std::vector<std::vector<float>> inputs;
  std::vector<float> entropy;
  for (float scale : {-4.0f, -1.0f, 0.0f, 0.25f, 1.0f, 4.0f}) {
    inputs.push_back(x);
    for (float& v : inputs.back()) v *= scale;
    ASSERT_EQ(tr.StreamStep(inputs.back().data(), logits.data(), o, &report), Status::kOk);
    entropy.push_back(report.entropy);
  }
  const size_t calm = size_t(std::min_element(entropy.begin(), entropy.end()) - entropy.begin());
  const size_t unsure = size_t(std::max_element(entropy.begin(), entropy.end()) - entropy.begin());
  ASSERT_GT(entropy[unsure], entropy[calm] + 1e-3f);
  tr.ResetStream();
  const uint32_t resets_before = report.resets;
  ASSERT_EQ(tr.StreamStep(inputs[calm].data(), logits.data(), o, &report),
            Status::kOk);  // the reference
  EXPECT_FALSE(report.reset);
  ASSERT_EQ(tr.StreamStep(inputs[unsure].data(), logits.data(), o, &report), Status::kOk);
  EXPECT_TRUE(report.reset);
  EXPECT_EQ(report.resets, resets_before + 1);
  EXPECT_EQ(report.samples, 0u);
  EXPECT_FALSE(statistics_moved());

  o.momentum = 1.5f;
  EXPECT_EQ(tr.StreamStep(x.data(), logits.data(), o, &report), Status::kInvalidArgument);
  EXPECT_NE(s->log.find("momentum"), std::string::npos) << s->log;
}

}  // namespace
}  // namespace edgefold::testing
