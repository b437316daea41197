// Proves the runtime allocates nothing on the heap after init: every malloc-family call and
// every operator new in this process is counted, and Create + Invoke (inference) and
// Trainer::Create + TrainStep + AdaptStatistics + Evaluate (training) must add zero.
// Not built under ASan (the sanitizer owns malloc); see CMakeLists.txt.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>

#include "testing/efb_builder.h"
#include "edgefold/interpreter.h"
#include "edgefold/trainer.h"
#include "testing/tiny_model.h"

extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void* __libc_memalign(size_t, size_t);

namespace {
std::atomic<long> g_allocations{0};
}

extern "C" void* malloc(size_t n) {
  ++g_allocations;
  return __libc_malloc(n);
}
extern "C" void* calloc(size_t a, size_t b) {
  ++g_allocations;
  return __libc_calloc(a, b);
}
extern "C" void* realloc(void* p, size_t n) {
  ++g_allocations;
  return __libc_realloc(p, n);
}
extern "C" void* aligned_alloc(size_t a, size_t n) {
  ++g_allocations;
  return __libc_memalign(a, n);
}
extern "C" int posix_memalign(void** out, size_t a, size_t n) {
  ++g_allocations;
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;
}
void* operator new(size_t n) {
  ++g_allocations;
  return __libc_malloc(n ? n : 1);
}
void* operator new[](size_t n) {
  ++g_allocations;
  return __libc_malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace edgefold::testing {
namespace {

TEST(NoHeap, CounterSeesAllocations) {
  const long before = g_allocations.load();
  auto* p = new int(3);
  delete p;
  void* q = std::malloc(16);
  std::free(q);
  EXPECT_EQ(g_allocations.load() - before, 2);
}

TEST(NoHeap, CreateAndInvokeAllocateNothing) {
  const TinyModel m = MakeTinyModel();
  AlignedBuffer model(m.bytes);
  const std::vector<float> x = RandomVector(50, 3);
  size_t arena_bytes = 0;
  ASSERT_EQ(RequiredArenaBytes(model.data(), model.size(), &arena_bytes), Status::kOk);
  AlignedBuffer arena(arena_bytes);
  // Warm the default resolver's one-time static outside the measured window.
  {
    AlignedBuffer warm(arena_bytes);
    Interpreter* w = nullptr;
    ASSERT_EQ(
        Interpreter::Create(model.data(), model.size(), warm.data(), arena_bytes, Options(), &w),
        Status::kOk);
  }
  const long before = g_allocations.load();
  Interpreter* interp = nullptr;
  ASSERT_EQ(Interpreter::Create(model.data(), model.size(), arena.data(), arena_bytes, Options(),
                                &interp),
            Status::kOk);
  for (int run = 0; run < 5; ++run) {
    ASSERT_EQ(interp->SetInput(0, x.data(), x.size()), Status::kOk);
    ASSERT_EQ(interp->Invoke(), Status::kOk);
  }
  EXPECT_EQ(g_allocations.load() - before, 0) << "the runtime allocated on the heap";
  const std::vector<float> want = TinyModelReference(m, x);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(interp->output(0).data[i], want[i], 1e-5);
}

// x[2,2,5,5] → Conv 3×3 (scratch) → BatchNorm+Relu → GlobalAveragePool → Reshape → Gemm → [2,3]
std::vector<uint8_t> TrainableModel() {
  EfbBuilder b;
  const int x = b.AddInput("x", {2, 2, 5, 5});
  const int w = b.AddConstant("conv.w", {4, 2, 3, 3}, RandomVector(72, 5, -0.5f, 0.5f));
  const int c = b.AddTensor("conv.out", {2, 4, 5, 5});
  b.AddOp(fb::OpType::Conv, "conv", {x, w}, {c}, ConvOptions(3, 1), 2 * 9 * 25 * 4);
  const int bn = AddBatchNorm(b, "bn", c, 4, {2, 4, 5, 5}, fb::ActivationKind::Relu, 6);
  AddClassifierHead(b, bn, 2, 4, RandomVector(12, 10), RandomVector(3, 11),
                    {"gap", "flat", "logits"});
  return b.Finish();
}

// The same model with a training section whose backward runs in two segments (compile
// --recompute): the first re-runs its forward inside the backward.
std::vector<uint8_t> RecomputedModel() {
  const std::vector<uint8_t> bytes = TrainableModel();
  auto m = fb::UnPackModel(bytes.data());
  m->format_version = 3;  // a training section is read from version 3 on
  m->training = std::make_unique<fb::TrainingSectionT>();
  m->training->batch_size = 2;
  m->training->recompute_segments = {2};  // [conv, bn] | [gap, flat, logits]
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, m.get()));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

void ExpectTrainingAllocatesNothing(const std::vector<uint8_t>& bytes) {
  AlignedBuffer model(bytes);
  const std::vector<float> x = RandomVector(2 * 2 * 25, 12);
  const std::vector<int32_t> labels = {2, 0};
  std::vector<float> logits(6, 0.0f);
  TrainOptions train;
  train.trainable = Trainable::kAll;  // the widest backward pass: every Conv/Gemm weight too
  size_t arena_bytes = 0;
  ASSERT_EQ(RequiredTrainingArenaBytes(model.data(), model.size(), train, &arena_bytes),
            Status::kOk);
  AlignedBuffer arena(arena_bytes);
  {
    AlignedBuffer warm(
        arena_bytes);  // one-time statics (resolver, kernel tables) outside the window
    Trainer* w = nullptr;
    ASSERT_EQ(
        Trainer::Create(model.data(), model.size(), warm.data(), arena_bytes, train, Options(), &w),
        Status::kOk);
    ASSERT_EQ(w->TrainStep(x.data(), labels.data(), nullptr, nullptr), Status::kOk);
  }
  const long before = g_allocations.load();
  Trainer* trainer = nullptr;
  ASSERT_EQ(Trainer::Create(model.data(), model.size(), arena.data(), arena_bytes, train, Options(),
                            &trainer),
            Status::kOk);
  float first = 0, loss = 0;
  int correct = 0;
  for (int step = 0; step < 5; ++step)
    ASSERT_EQ(trainer->TrainStep(x.data(), labels.data(), step == 0 ? &first : &loss, &correct),
              Status::kOk);
  ASSERT_EQ(trainer->AdaptStatistics(x.data()), Status::kOk);
  trainer->ResetStatistics();
  ASSERT_EQ(trainer->AdaptStatistics(x.data()), Status::kOk);
  ASSERT_EQ(trainer->Evaluate(x.data(), logits.data()), Status::kOk);
  EXPECT_EQ(g_allocations.load() - before, 0) << "the trainer allocated on the heap";
  EXPECT_LT(loss, first) << "five SGD steps on one batch must lower its loss";
  for (float v : logits) EXPECT_TRUE(std::isfinite(v));
}

TEST(NoHeap, TrainerCreateStepAdaptEvaluateAllocateNothing) {
  ExpectTrainingAllocatesNothing(TrainableModel());
}

TEST(NoHeap, ARecomputedBackwardAllocatesNothing) {
  ExpectTrainingAllocatesNothing(RecomputedModel());
}

}  // namespace
}  // namespace edgefold::testing
