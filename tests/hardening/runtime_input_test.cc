// Bad runtime inputs give a status, never undefined behaviour: wrong element count, bad index,
// null data, arena too small (the message names the bytes needed), misaligned arena and model.
// NaN/Inf inputs are documented to propagate as IEEE arithmetic does: no status, no crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "testing/efb_builder.h"
#include "testing/run_model.h"
#include "testing/runtime_session.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

// The interpreter of `bytes` on level `isa` (created in an arena of the size it asks for).
std::unique_ptr<InterpreterSession> Loaded(const std::vector<uint8_t>& bytes,
                                           Isa isa = Isa::kAuto) {
  std::unique_ptr<InterpreterSession> s = CreateInterpreter(bytes, isa);
  EXPECT_EQ(s->status, Status::kOk) << s->log;
  return s;
}

TEST(RuntimeInput, SetInputRejectsWrongCountIndexAndNull) {
  const auto l = Loaded(MakeTinyModel().bytes);
  const std::vector<float> x(51, 0.0f);
  EXPECT_EQ(l->interp->SetInput(0, x.data(), 49), Status::kShapeMismatch);
  EXPECT_NE(l->log.find("holds 50 floats, got 49"), std::string::npos) << l->log;
  EXPECT_EQ(l->interp->SetInput(0, x.data(), 51), Status::kShapeMismatch);
  EXPECT_EQ(l->interp->SetInput(0, x.data(), 0), Status::kShapeMismatch);
  EXPECT_EQ(l->interp->SetInput(1, x.data(), 50), Status::kInvalidArgument);
  EXPECT_EQ(l->interp->SetInput(SIZE_MAX, x.data(), 50), Status::kInvalidArgument);
  EXPECT_EQ(l->interp->SetInput(0, nullptr, 50), Status::kInvalidArgument);
  EXPECT_EQ(l->interp->input(7).data, nullptr);
  EXPECT_EQ(l->interp->output(7).data, nullptr);
  EXPECT_EQ(l->interp->SetInput(0, x.data(), 50), Status::kOk);
}

// x[1,2,5,5] → Conv 3×3 pad 1 (no activation) → GlobalAveragePool → Reshape → Gemm → y[1,3]:
// only arithmetic, no max(): IEEE says a NaN anywhere in x reaches every output.
std::vector<uint8_t> ArithmeticModel() {
  EfbBuilder b;
  const int x = b.AddInput("x", {1, 2, 5, 5});
  const int w = b.AddConstant("w", {3, 2, 3, 3}, RandomVector(54, 1));
  const int c = b.AddTensor("c", {1, 3, 5, 5});
  b.AddOp(fb::OpType::Conv, "conv", {x, w}, {c}, ConvOptions(3, 1), 2 * 9 * 25 * 4);
  AddClassifierHead(b, c, 1, 3, RandomVector(9, 2), {});
  return b.Finish();
}

// Documented behaviour: NaN/Inf inputs are not checked (that would cost a pass over every
// input); they propagate through arithmetic ops as IEEE 754 says. Max-like ops (Relu, Clip,
// MaxPool) follow the kernel's max(): SIMD levels may turn NaN into the other operand.
TEST(RuntimeInput, NanAndInfPropagateOnEveryIsa) {
  const std::vector<uint8_t> bytes = ArithmeticModel();
  for (Isa isa : AvailableIsas()) {
    SCOPED_TRACE(IsaName(isa));
    const auto l = Loaded(bytes, isa);
    std::vector<float> x = RandomVector(50, 3);
    x[7] = std::numeric_limits<float>::quiet_NaN();
    ASSERT_EQ(l->interp->SetInput(0, x.data(), x.size()), Status::kOk);
    ASSERT_EQ(l->interp->Invoke(), Status::kOk);
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(l->interp->output(0).data[i])) << i;
    std::vector<float> inf = RandomVector(50, 5);
    inf[0] = std::numeric_limits<float>::infinity();
    ASSERT_EQ(l->interp->SetInput(0, inf.data(), inf.size()), Status::kOk);
    ASSERT_EQ(l->interp->Invoke(), Status::kOk);
    for (size_t i = 0; i < 3; ++i) EXPECT_FALSE(std::isfinite(l->interp->output(0).data[i])) << i;
    // Clean input afterwards gives clean output: nothing sticky in the arena.
    const std::vector<float> clean = RandomVector(50, 4);
    ASSERT_EQ(l->interp->SetInput(0, clean.data(), clean.size()), Status::kOk);
    ASSERT_EQ(l->interp->Invoke(), Status::kOk);
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(std::isfinite(l->interp->output(0).data[i])) << i;
  }
}

// The tiny model (Conv+Relu) on NaN input: no crash and no status on any level; what Relu
// makes of NaN is printed (it differs between the scalar reference and SIMD levels).
TEST(RuntimeInput, NanThroughReluNeverCrashes) {
  const TinyModel m = MakeTinyModel();
  for (Isa isa : AvailableIsas()) {
    const auto l = Loaded(m.bytes, isa);
    std::vector<float> x(50, std::numeric_limits<float>::quiet_NaN());
    ASSERT_EQ(l->interp->SetInput(0, x.data(), x.size()), Status::kOk);
    ASSERT_EQ(l->interp->Invoke(), Status::kOk);
    std::printf("%s: Relu(NaN) model output[0] = %g\n", IsaName(isa), l->interp->output(0).data[0]);
  }
}

TEST(RuntimeInput, ArenaTooSmallSaysHowManyBytesAndMisalignmentIsAStatus) {
  const TinyModel m = MakeTinyModel();
  AlignedBuffer model(m.bytes);
  size_t need = 0;
  EXPECT_EQ(RequiredArenaBytes(model.data(), model.size(), &need), Status::kOk);
  AlignedBuffer arena(need + 64);
  std::string log;
  const Options o = LoggingOptions(&log);
  Interpreter* interp = nullptr;
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{64}, need / 2, need - 1}) {
    log.clear();
    EXPECT_EQ(Interpreter::Create(model.data(), model.size(), arena.data(), bytes, o, &interp),
              Status::kArenaTooSmall);
    EXPECT_NE(log.find("model needs " + std::to_string(need) + " bytes"), std::string::npos) << log;
  }
  for (size_t shift : {1, 4, 8, 32}) {
    EXPECT_EQ(
        Interpreter::Create(model.data(), model.size(), arena.data() + shift, need, o, &interp),
        Status::kMisalignedArena);
  }
  AlignedBuffer shifted(m.bytes.size() + 64);
  std::copy(m.bytes.begin(), m.bytes.end(), shifted.data() + 16);
  size_t n = 0;
  EXPECT_EQ(RequiredArenaBytes(shifted.data() + 16, m.bytes.size(), &n), Status::kMisalignedModel);
  EXPECT_EQ(
      Interpreter::Create(shifted.data() + 16, m.bytes.size(), arena.data(), need, o, &interp),
      Status::kMisalignedModel);
  EXPECT_EQ(Interpreter::Create(model.data(), model.size(), nullptr, need, o, &interp),
            Status::kInvalidArgument);
  EXPECT_EQ(Interpreter::Create(model.data(), model.size(), arena.data(), need, o, nullptr),
            Status::kInvalidArgument);
  EXPECT_EQ(RequiredArenaBytes(nullptr, 100, &n), Status::kInvalidModel);
  EXPECT_EQ(RequiredArenaBytes(model.data(), model.size(), nullptr), Status::kInvalidArgument);
}

}  // namespace
}  // namespace edgefold::testing
