// Winograd convs planned with a scratch slice per thread (CompileOptions::threads, Operator
// .scratch_slices): every plan (1–4 slices) gives the one-thread bits of the one-slice plan at
// 1–7 tasks (run in reverse order) and with pools of 2–4 threads, on every kernel level; each
// sliced conv takes one parallel step; slice t is at one arena place for all sliced convs; a
// plan whose slices do not fit is refused, naming the op.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "edgefold/thread_pool.h"
#include "edgefold_compiler/compiler.h"
#include "testing/efb_builder.h"
#include "testing/onnx_builder.h"
#include "testing/run_model.h"

namespace edgefold {
namespace {

void Collect(void* user, const char* message) { *static_cast<std::string*>(user) += message; }

// Runs the tasks on the calling thread, last first, counting parallel steps in *user.
void ReverseSerial(void* user, size_t tasks, void (*run)(void*, size_t), void* ctx) {
  ++*static_cast<size_t*>(user);
  for (size_t i = tasks; i-- > 0;) run(ctx, i);
}

struct RunOutcome {
  Status status = Status::kOk;
  std::string log;
  std::vector<float> y;
};

RunOutcome RunWith(const std::vector<uint8_t>& efb, const std::vector<float>& x, Options options) {
  RunOutcome r;
  options.log = Collect;
  options.log_user = &r.log;
  testing::AlignedBuffer model(efb);
  size_t bytes = 0;
  r.status = RequiredArenaBytes(model.data(), model.size(), &bytes, options);
  if (r.status != Status::kOk) return r;
  testing::AlignedBuffer arena(bytes);
  Interpreter* interp = nullptr;
  r.status = Interpreter::Create(model.data(), model.size(), arena.data(), bytes, options, &interp);
  if (r.status != Status::kOk) return r;
  EXPECT_EQ(interp->SetInput(0, x.data(), x.size()), Status::kOk);
  r.status = interp->Invoke();
  const TensorView y = interp->output(0);
  r.y.assign(y.data, y.data + y.elems);
  return r;
}

std::vector<float> Values(std::mt19937& gen, size_t n, float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// 20 channels (not a multiple of any level's lanes) on 26 × 66 (F(4×4): 7 tile rows of 17
// tiles, odd; F(2×2): 13 of 33), then 36, then an 8-row plane (2 or 4 tile rows: fewer than 3
// or 4 threads) into 16: split by tile rows. Then 8 × 8 into 28 channels (2 or 4 tiles a row,
// too few GEMM columns per thread): not sliced, its scratch in the sliced convs' place.
onnx::ModelProto SlicedNet() {
  std::mt19937 gen(29);
  testing::OnnxBuilder b;
  b.Input("x", {1, 20, 26, 66});
  b.Init("w1", {20, 20, 3, 3}, Values(gen, 20 * 20 * 9, 0.1f))
      .Init("b1", {20}, Values(gen, 20, 0.1f));
  b.Init("w2", {36, 20, 3, 3}, Values(gen, 36 * 20 * 9, 0.1f));
  b.Init("w3", {16, 36, 3, 3}, Values(gen, 16 * 36 * 9, 0.1f));
  b.Init("w4", {28, 16, 3, 3}, Values(gen, 28 * 16 * 9, 0.1f))
      .Init("b4", {28}, Values(gen, 28, 0.1f));
  testing::SetInts(b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "odd_tile_rows"), "pads",
                   {1, 1, 1, 1});
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  testing::SetInts(b.Node("Conv", {"r1", "w2"}, {"c2"}, "thirty_six"), "pads", {1, 1, 1, 1});
  onnx::NodeProto& rows = b.Node("MaxPool", {"c2"}, {"p2"}, "rows_by_three");
  testing::SetInts(rows, "kernel_shape", {3, 1});
  testing::SetInts(rows, "strides", {3, 1});
  testing::SetInts(b.Node("Conv", {"p2", "w3"}, {"c3"}, "eight_rows"), "pads", {1, 1, 1, 1});
  onnx::NodeProto& cols = b.Node("MaxPool", {"c3"}, {"p3"}, "columns_by_eight");
  testing::SetInts(cols, "kernel_shape", {1, 8});
  testing::SetInts(cols, "strides", {1, 8});
  testing::SetInts(b.Node("Conv", {"p3", "w4", "b4"}, {"y"}, "small_plane"), "pads", {1, 1, 1, 1});
  b.Output("y");
  return b.model();
}

compiler::CompileResult Compile(int tile, int threads) {
  compiler::CompileOptions options;
  options.winograd_tile = tile;
  options.threads = threads;
  return compiler::CompileModel(SlicedNet(), options);
}

TEST(WinogradSlices, EveryPlanGivesTheOneThreadBitsAtAnyThreadCount) {
  std::mt19937 gen(31);
  const std::vector<float> x = Values(gen, 20 * 26 * 66, 1.0f);
  ThreadPool pool2(2), pool3(3), pool4(4);
  for (const int tile : {2, 4}) {
    const compiler::CompileResult one = Compile(tile, 1);
    ASSERT_TRUE(one.ok) << one.error;
    ASSERT_EQ(one.report.winograd_convs, 4);
    EXPECT_EQ(one.report.sliced_winograd_convs, 0);
    for (Isa isa : testing::AvailableIsas()) {
      Options single;
      single.isa = isa;
      const std::vector<float> want = RunWith(one.model, x, single).y;
      ASSERT_EQ(want.size(), 28u * 8 * 8);
      for (const int plan : {2, 3, 4}) {
        SCOPED_TRACE("tile " + std::to_string(tile) + ", " + IsaName(isa) + ", plan of " +
                     std::to_string(plan));
        const compiler::CompileResult sliced = Compile(tile, plan);
        ASSERT_TRUE(sliced.ok) << sliced.error;
        EXPECT_EQ(sliced.report.sliced_winograd_convs, 3);
        EXPECT_EQ(RunWith(sliced.model, x, single).y, want) << "one thread";
        for (size_t tasks : {2, 3, 4, 5, 7}) {
          size_t steps[2] = {};  // [plan of 1, sliced plan]
          Options o = single;
          o.parallel_for = &ReverseSerial;
          o.num_threads = tasks;
          o.min_task_work = 1;
          o.parallel_user = &steps[0];
          EXPECT_EQ(RunWith(one.model, x, o).y, want) << "plan of 1, " << tasks << " tasks";
          o.parallel_user = &steps[1];
          const RunOutcome r = RunWith(sliced.model, x, o);
          EXPECT_EQ(r.status, Status::kOk) << r.log;
          EXPECT_EQ(r.y, want) << tasks << " tasks";
          // Sliced, each conv is one step (tile rows, fill included): fewer than the per-step
          // splits (fill, then tile rows or the band steps).
          EXPECT_LT(steps[1], steps[0]) << tasks << " tasks";
        }
        for (ThreadPool* pool : {&pool2, &pool3, &pool4}) {
          Options o = single;
          pool->Configure(&o);
          o.min_task_work = 1;
          EXPECT_EQ(RunWith(sliced.model, x, o).y, want) << "pool of " << pool->threads();
        }
      }
    }
  }
}

// Slice t of every sliced conv starts at the same arena offset: one scratch place, one stride.
TEST(WinogradSlices, EverySlicedConvHasItsSlicesAtOnePlace) {
  const compiler::CompileResult r = Compile(4, 2);
  ASSERT_TRUE(r.ok) << r.error;
  const auto model = fb::UnPackModel(r.model.data());
  int sliced = 0;
  int64_t offset = -1;
  uint64_t stride = 0;
  for (const auto& op : model->operators) {
    if (op->scratch_slices <= 1) continue;
    ++sliced;
    EXPECT_EQ(op->scratch_slices, 2);
    EXPECT_EQ(op->scratch_bytes % (64 * op->scratch_slices), 0u);
    if (offset < 0) offset = op->scratch_offset, stride = op->scratch_bytes / op->scratch_slices;
    EXPECT_EQ(op->scratch_offset, offset) << op->name;
    EXPECT_EQ(op->scratch_bytes / op->scratch_slices, stride) << op->name;
  }
  EXPECT_EQ(sliced, 3);
}

// Re-serializes `efb` after `edit` changes the op named `name`.
template <class Edit>
std::vector<uint8_t> Edited(const std::vector<uint8_t>& efb, const std::string& name, Edit edit) {
  auto model = fb::UnPackModel(efb.data());
  for (auto& op : model->operators)
    if (op->name == name) edit(*op);
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(WinogradSlices, SlicesThatDoNotFitAreRefusedNamingTheOp) {
  const compiler::CompileResult r = Compile(4, 2);
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> x(20 * 26 * 66, 0.5f);
  // Not 64-byte slices.
  RunOutcome run =
      RunWith(Edited(r.model, "odd_tile_rows", [](fb::OperatorT& op) { op.scratch_slices = 3; }), x,
              Options());
  EXPECT_EQ(run.status, Status::kInvalidModel);
  EXPECT_NE(run.log.find("odd_tile_rows"), std::string::npos) << run.log;
  EXPECT_NE(run.log.find("scratch_slices"), std::string::npos) << run.log;
  // 64-byte slices, too small for a thread's tile rows.
  run = RunWith(Edited(r.model, "thirty_six", [](fb::OperatorT& op) { op.scratch_bytes = 128; }), x,
                Options());
  EXPECT_EQ(run.status, Status::kInvalidModel);
  EXPECT_NE(run.log.find("thirty_six"), std::string::npos) << run.log;
  EXPECT_NE(run.log.find("per slice"), std::string::npos) << run.log;
}

}  // namespace
}  // namespace edgefold
