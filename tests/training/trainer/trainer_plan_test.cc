// The trainer's layout (training/trainer_plan.h): every buffer listed once, by a role of its
// own; a plan in the training section found by role whatever the order of its records or of
// the offsets; a plan that misses a buffer or misstates its size refused naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>
#include <vector>

#include "edgefold/trainer.h"
#include "testing/efb_builder.h"
#include "testing/runtime_session.h"

namespace edgefold::testing {
namespace {

// x[2,2,5,5] → Conv 3×3 (scratch) → BatchNorm+Relu → GlobalAveragePool → Reshape → Gemm → [2,3],
// with a training section (format version 3) that trains γ, β and the head, refolds, and
// recomputes the segment [conv, bn] in the backward.
fb::ModelT TrainableModel() {
  EfbBuilder b;
  const int x = b.AddInput("x", {2, 2, 5, 5});
  const int w = b.AddConstant("conv.w", {4, 2, 3, 3}, RandomVector(72, 5, -0.5f, 0.5f));
  const int c = b.AddTensor("conv.out", {2, 4, 5, 5});
  b.AddOp(fb::OpType::Conv, "conv", {x, w}, {c}, ConvOptions(3, 1), 2 * 9 * 25 * 4);
  const int bn = AddBatchNorm(b, "bn", c, 4, {2, 4, 5, 5}, fb::ActivationKind::Relu, 6);
  AddClassifierHead(b, bn, 2, 4, RandomVector(12, 10), RandomVector(3, 11),
                    {"gap", "flat", "logits"});
  const std::vector<uint8_t> bytes = b.Finish();
  fb::ModelT m;
  fb::GetModel(bytes.data())->UnPackTo(&m);
  m.format_version = 3;
  m.training = std::make_unique<fb::TrainingSectionT>();
  m.training->batch_size = 2;
  m.training->refold_weights = true;
  m.training->recompute_segments = {2};
  for (const auto& op : m.operators) {  // γ, β (inputs 1, 2); the head's weights and bias
    const size_t end = op->type == fb::OpType::BatchNorm ? 3
                       : op->type == fb::OpType::Gemm    ? op->inputs.size()
                                                         : 0;
    for (size_t k = 1; k < end; ++k) m.training->trainable.push_back(op->inputs[k]);
  }
  std::sort(m.training->trainable.begin(), m.training->trainable.end());
  return m;
}

std::vector<uint8_t> Pack(const fb::ModelT& m) {
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, &m));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

std::vector<TrainingBuffer> Buffers(const std::vector<uint8_t>& bytes) {
  AlignedBuffer model(bytes);
  std::vector<TrainingBuffer> out;
  auto visit = [](void* user, const TrainingBuffer& b) {
    static_cast<std::vector<TrainingBuffer>*>(user)->push_back(b);
  };
  EXPECT_EQ(ForEachTrainingBuffer(model.data(), bytes.size(), TrainOptions(), visit, &out),
            Status::kOk);
  return out;
}

// A plan that gives every buffer its own bytes: the first listed buffer the highest offset,
// the records written in reverse order of the list.
void PlanBackwards(fb::ModelT* m, const std::vector<TrainingBuffer>& buffers) {
  uint64_t offset = 0;
  for (size_t i = buffers.size(); i-- > 0;) {
    auto r = std::make_unique<fb::TrainingBufferRecordT>();
    r->kind = static_cast<fb::TrainingBufferKind>(buffers[i].kind);
    r->owner = buffers[i].owner;
    r->index = buffers[i].index;
    r->life = buffers[i].life;
    r->offset = offset;
    r->bytes = buffers[i].bytes;
    offset += (buffers[i].bytes + 63) / 64 * 64;
    m->training->buffers.push_back(std::move(r));
  }
  m->training->planned_bytes = offset;
}

TEST(TrainerPlan, EveryBufferHasARoleOfItsOwn) {
  const fb::ModelT m = TrainableModel();
  const std::vector<TrainingBuffer> buffers = Buffers(Pack(m));
  std::set<std::tuple<int, int, int, int>> roles;
  std::set<TrainingBufferKind> kinds;
  size_t second_lives = 0;
  for (const TrainingBuffer& b : buffers) {
    EXPECT_TRUE(roles.insert({static_cast<int>(b.kind), b.owner, b.index, b.life}).second)
        << TrainingBufferKindName(b.kind) << " of " << b.owner << " listed twice";
    const bool of_tensor = b.kind <= TrainingBufferKind::kVelocity;
    const size_t owners = of_tensor ? m.tensors.size() : m.operators.size();
    if (b.kind != TrainingBufferKind::kTemp)
      EXPECT_LT(static_cast<size_t>(b.owner), owners) << TrainingBufferKindName(b.kind);
    EXPECT_GT(b.bytes, 0u);
    kinds.insert(b.kind);
    second_lives += b.life == 1;
  }
  EXPECT_GT(second_lives, 0u) << "the recomputed segment gives no buffer a second life";
  for (TrainingBufferKind k :
       {TrainingBufferKind::kActivation, TrainingBufferKind::kGradient,
        TrainingBufferKind::kParameter, TrainingBufferKind::kParameterGradient,
        TrainingBufferKind::kVelocity, TrainingBufferKind::kStatistics, TrainingBufferKind::kFolded,
        TrainingBufferKind::kScratch, TrainingBufferKind::kTemp})
    EXPECT_EQ(kinds.count(k), 1u) << TrainingBufferKindName(k);
}

// Offsets assigned against the listing order, records in reverse: the trainer trains bit for
// bit as the one that lays its buffers out one after the other.
TEST(TrainerPlan, APlanInAnyOrderTrainsAsTheUnplannedLayout) {
  fb::ModelT planned = TrainableModel();
  const std::vector<uint8_t> plain = Pack(planned);
  PlanBackwards(&planned, Buffers(plain));
  auto a = CreateTrainer(plain, TrainOptions()), b = CreateTrainer(Pack(planned), TrainOptions());
  ASSERT_EQ(a->status, Status::kOk) << a->log;
  ASSERT_EQ(b->status, Status::kOk) << b->log;
  const std::vector<float> x = RandomVector(2 * 2 * 5 * 5, 21);
  const int32_t labels[2] = {0, 2};
  for (int step = 0; step < 3; ++step) {
    float loss_a = 0, loss_b = 0;
    ASSERT_EQ(a->trainer->TrainStep(x.data(), labels, &loss_a, nullptr), Status::kOk);
    ASSERT_EQ(b->trainer->TrainStep(x.data(), labels, &loss_b, nullptr), Status::kOk);
    EXPECT_EQ(loss_a, loss_b) << "step " << step;
  }
  ASSERT_EQ(a->trainer->num_parameters(), b->trainer->num_parameters());
  for (size_t i = 0; i < a->trainer->num_parameters(); ++i) {
    const ParameterView pa = a->trainer->parameter(i), pb = b->trainer->parameter(i);
    EXPECT_EQ(std::memcmp(pa.data, pb.data, pa.elems * sizeof(float)), 0) << pa.name;
  }
}

// The idle span (Trainer::idle_span): with a plan, a part of the arena that covers no
// parameter and that a caller may overwrite between calls without changing what the trainer
// computes (training, Refold, Evaluate); without a plan, none.
TEST(TrainerPlan, TheIdleSpanHoldsNothingACallReadsBack) {
  fb::ModelT planned = TrainableModel();
  const std::vector<uint8_t> plain = Pack(planned);
  PlanBackwards(&planned, Buffers(plain));
  auto none = CreateTrainer(plain, TrainOptions());
  auto a = CreateTrainer(Pack(planned), TrainOptions()),
       b = CreateTrainer(Pack(planned), TrainOptions());
  ASSERT_EQ(a->status, Status::kOk) << a->log;
  ASSERT_EQ(b->status, Status::kOk) << b->log;
  EXPECT_EQ(none->trainer->idle_span().bytes, 0u);
  const Trainer::IdleSpan span = b->trainer->idle_span();
  ASSERT_NE(span.data, nullptr);
  ASSERT_GE(span.bytes, 2u * 4 * 5 * 5 * sizeof(float));  // at least the conv's output
  for (size_t i = 0; i < b->trainer->num_parameters(); ++i) {
    const ParameterView p = b->trainer->parameter(i);
    const uint8_t* begin = reinterpret_cast<const uint8_t*>(p.data);
    EXPECT_TRUE(begin + p.elems * sizeof(float) <= span.data || begin >= span.data + span.bytes)
        << p.name << " lies in the idle span";
  }
  const std::vector<float> x = RandomVector(2 * 2 * 5 * 5, 21);
  const int32_t labels[2] = {0, 2};
  auto scribble = [&] { std::memset(span.data, 0xA5, span.bytes); };  // NaN patterns as floats
  for (int step = 0; step < 3; ++step) {
    float loss_a = 0, loss_b = 0;
    scribble();
    ASSERT_EQ(a->trainer->TrainStep(x.data(), labels, &loss_a, nullptr), Status::kOk);
    ASSERT_EQ(b->trainer->TrainStep(x.data(), labels, &loss_b, nullptr), Status::kOk);
    EXPECT_EQ(loss_a, loss_b) << "step " << step;
  }
  scribble();
  EXPECT_EQ(a->trainer->Refold(), b->trainer->Refold());
  scribble();
  std::vector<float> ya(2 * 3), yb(2 * 3);
  ASSERT_EQ(a->trainer->Evaluate(x.data(), ya.data()), Status::kOk);
  ASSERT_EQ(b->trainer->Evaluate(x.data(), yb.data()), Status::kOk);
  EXPECT_EQ(ya, yb);
}

TEST(TrainerPlan, APlanMissingABufferOrMisstatingItsSizeIsRefusedNamingIt) {
  fb::ModelT m = TrainableModel();
  PlanBackwards(&m, Buffers(Pack(m)));
  auto& records = m.training->buffers;
  const auto scratch = std::find_if(records.begin(), records.end(), [](const auto& r) {
    return r->kind == fb::TrainingBufferKind::Scratch;
  });
  ASSERT_NE(scratch, records.end());
  (*scratch)->bytes -= 4;
  auto s = CreateTrainer(Pack(m), TrainOptions());
  EXPECT_EQ(s->status, Status::kInvalidModel);
  EXPECT_NE(s->log.find("op 'conv''s scratch buffer"), std::string::npos) << s->log;
  records.erase(scratch);
  s = CreateTrainer(Pack(m), TrainOptions());
  EXPECT_EQ(s->status, Status::kInvalidModel);
  EXPECT_NE(s->log.find("no planned buffer"), std::string::npos) << s->log;
}

TEST(TrainerPlan, TwoRecordsOfOneRoleAreRefused) {
  fb::ModelT m = TrainableModel();
  PlanBackwards(&m, Buffers(Pack(m)));
  auto copy = std::make_unique<fb::TrainingBufferRecordT>(*m.training->buffers.front());
  m.training->buffers.push_back(std::move(copy));
  auto s = CreateTrainer(Pack(m), TrainOptions());
  EXPECT_EQ(s->status, Status::kInvalidModel);
  EXPECT_NE(s->log.find("name the same"), std::string::npos) << s->log;
}

}  // namespace
}  // namespace edgefold::testing
