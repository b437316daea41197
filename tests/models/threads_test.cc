// Threads (Options::parallel_for): every op's work split over 1–7 tasks gives the same output
// bits as one thread, on the committed real networks, at every kernel level, with the host
// ThreadPool and with a serial parallel_for that runs the tasks in reverse order (so no result
// depends on which task runs first). The ThreadPool runs every task of every job exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <random>
#include <cstring>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "edgefold/thread_pool.h"
#include "edgefold_compiler/compiler.h"
#include "file_io.h"
#include "npy.h"
#include "testing/onnx_builder.h"
#include "testing/run_model.h"

namespace edgefold {
namespace {

const std::string kData = EDGEFOLD_MODELS_DATA_DIR;

// Runs the tasks on the calling thread, last first.
void ReverseSerial(void* user, size_t tasks, void (*run)(void*, size_t), void* ctx) {
  ++*static_cast<size_t*>(user);
  for (size_t i = tasks; i-- > 0;) run(ctx, i);
}

std::vector<float> RunWith(const std::vector<uint8_t>& efb, const std::vector<float>& input,
                           Options options) {
  tools::AlignedBuffer model = tools::AllocateAligned(efb.size());
  std::memcpy(model.data.get(), efb.data(), efb.size());
  size_t bytes = 0;
  EXPECT_EQ(RequiredArenaBytes(model.data.get(), efb.size(), &bytes, options), Status::kOk);
  tools::AlignedBuffer arena = tools::AllocateAligned(bytes);
  Interpreter* interp = nullptr;
  EXPECT_EQ(
      Interpreter::Create(model.data.get(), efb.size(), arena.data.get(), bytes, options, &interp),
      Status::kOk);
  if (interp == nullptr) return {};
  EXPECT_EQ(interp->SetInput(0, input.data(), input.size()), Status::kOk);
  EXPECT_EQ(interp->Invoke(), Status::kOk);
  const TensorView y = interp->output(0);
  return std::vector<float>(y.data, y.data + y.elems);
}

// On every ISA: the model's output with each pool and with 2, 5, 7 tasks run in reverse order
// on this thread (counted in *splits) equals the single-thread output bit for bit.
void ExpectSameForAnyThreadCount(const std::string& name, const std::vector<uint8_t>& efb,
                                 const std::vector<float>& x,
                                 std::initializer_list<ThreadPool*> pools, size_t* splits) {
  for (Isa isa : testing::AvailableIsas()) {
    SCOPED_TRACE(name + " " + IsaName(isa));
    Options one;
    one.isa = isa;
    const std::vector<float> want = RunWith(efb, x, one);
    ASSERT_FALSE(want.empty());
    for (ThreadPool* pool : pools) {
      Options o = one;
      pool->Configure(&o);
      EXPECT_EQ(RunWith(efb, x, o), want) << pool->threads() << " threads";
    }
    for (size_t tasks : {2, 5, 7}) {
      Options o = one;
      o.parallel_for = &ReverseSerial;
      o.parallel_user = splits;
      o.num_threads = tasks;
      EXPECT_EQ(RunWith(efb, x, o), want) << tasks << " tasks in reverse order";
    }
  }
}

TEST(Threads, OutputsAreBitIdenticalForAnyThreadCount) {
  ThreadPool pool2(2), pool3(3), pool4(4);
  size_t splits = 0;
  for (const char* name :
       {"ds_cnn", "resnet8", "mobilenet_v1_025", "bn_positions", "fc_autoencoder", "mlp_bn1d"}) {
    const compiler::CompileResult r =
        compiler::CompileFile(kData + "/" + name + ".onnx", compiler::CompileOptions());
    ASSERT_TRUE(r.ok) << r.error;
    tools::NpyArray x;
    std::string error;
    ASSERT_TRUE(tools::ReadNpy(kData + "/" + name + ".input.npy", &x, &error)) << error;
    ExpectSameForAnyThreadCount(name, r.model, x.f32, {&pool2, &pool3, &pool4}, &splits);
  }
  EXPECT_GT(splits, 0u) << "no op was split: the test proves nothing";
}

// int8 models (--quantize int8): the int8 convolutions split their GEMM columns over threads.
TEST(Threads, Int8OutputsAreBitIdenticalForAnyThreadCount) {
  ThreadPool pool2(2), pool3(3);
  size_t splits = 0;
  for (const char* name : {"resnet8", "mobilenet_v1_025"}) {
    tools::NpyArray x;
    std::string error;
    ASSERT_TRUE(tools::ReadNpy(kData + "/" + name + ".input.npy", &x, &error)) << error;
    compiler::CompileOptions options;
    options.quantize_int8 = true;
    for (float gain : {1.0f, -0.5f, 2.0f})  // three calibration samples around the test input
      for (float v : x.f32) options.calibration.push_back(v * gain);
    options.calibration_shape = x.shape;
    options.calibration_shape[0] = 3 * x.shape[0];
    const compiler::CompileResult r = compiler::CompileFile(kData + "/" + name + ".onnx", options);
    ASSERT_TRUE(r.ok) << r.error;
    ExpectSameForAnyThreadCount(std::string(name) + " int8", r.model, x.f32, {&pool2, &pool3},
                                &splits);
  }
  EXPECT_GT(splits, 0u) << "no int8 op was split: the test proves nothing";
}

// n weights uniform in [−0.1, 0.1).
std::vector<float> UniformWeights(std::mt19937& gen, size_t n) {
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// n values N(0, 1) from seed.
std::vector<float> NormalInput(unsigned seed, size_t n) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist;
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// The output with 2, 3 and 7 tasks (run in reverse, counting splits) equals `want`.
void ExpectSameWithTasks(const std::vector<uint8_t>& model, const std::vector<float>& x,
                         const Options& one, const std::vector<float>& want, size_t* splits) {
  for (size_t tasks : {2, 3, 7}) {
    Options o = one;
    o.parallel_for = &ReverseSerial;
    o.parallel_user = splits;
    o.num_threads = tasks;
    EXPECT_EQ(RunWith(model, x, o), want) << IsaName(one.isa) << ", " << tasks << " tasks";
  }
}

// On every ISA: `outputs` values, the same with 2, 3 and 7 tasks as on one thread, and at least
// `min_splits` parallel steps over those three runs.
void ExpectSameOnEveryIsa(const std::vector<uint8_t>& model, const std::vector<float>& x,
                          size_t outputs, size_t min_splits) {
  for (Isa isa : testing::AvailableIsas()) {
    Options one;
    one.isa = isa;
    const std::vector<float> want = RunWith(model, x, one);
    ASSERT_EQ(want.size(), outputs) << IsaName(isa);
    size_t splits = 0;
    ExpectSameWithTasks(model, x, one, want, &splits);
    EXPECT_GE(splits, min_splits) << IsaName(isa);
  }
}

// Winograd 3×3 convs (their α² GEMMs per band split over threads) and a wide Gemm (its
// columns split): large enough that every split path runs.
onnx::ModelProto WideConvNet() {
  std::mt19937 gen(5);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 32, 24, 24});
  b.Init("w1", {64, 32, 3, 3}, values(64 * 32 * 9)).Init("w2", {64, 64, 3, 3}, values(64 * 64 * 9));
  b.Init("fc", {2304, 64}, values(2304 * 64)).Init("fc_b", {2304}, values(2304));
  testing::SetInts(b.Node("Conv", {"x", "w1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  testing::SetInts(b.Node("Conv", {"r1", "w2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  b.Node("GlobalAveragePool", {"c2"}, {"g"}, "gap");
  b.Node("Flatten", {"g"}, {"f"}, "flatten");
  testing::SetInt(b.Node("Gemm", {"f", "fc", "fc_b"}, {"y"}, "fc"), "transB", 1);
  b.Output("y");
  return b.model();
}

TEST(Threads, WinogradAndWideGemmAreBitIdentical) {
  const compiler::CompileResult r =
      compiler::CompileModel(WideConvNet(), compiler::CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.report.winograd_convs, 0);
  ExpectSameOnEveryIsa(r.model, NormalInput(9, 32 * 24 * 24), 2304, 1);
}

// Winograd convs on small planes like those of the MLPerf Tiny networks (20² and 10²: odd tile
// row counts; 20, 32 and 64 channels: whole 8-row tiles or not), split by tile rows or, where a
// thread's slice does not fit the band's room, band by band over channels and ξ.
onnx::ModelProto SmallPlaneWinogradNet() {
  std::mt19937 gen(13);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 32, 20, 20});
  b.Init("w1", {32, 32, 3, 3}, values(32 * 32 * 9)).Init("w2", {20, 32, 3, 3}, values(20 * 32 * 9));
  b.Init("w3", {64, 20, 3, 3}, values(64 * 20 * 9)).Init("w4", {20, 64, 3, 3}, values(20 * 64 * 9));
  b.Init("b2", {20}, values(20));
  testing::SetInts(b.Node("Conv", {"x", "w1"}, {"c1"}, "even_channels"), "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  testing::SetInts(b.Node("Conv", {"r1", "w2", "b2"}, {"c2"}, "twenty_channels"), "pads",
                   {1, 1, 1, 1});
  onnx::NodeProto& pool = b.Node("MaxPool", {"c2"}, {"p2"}, "pool");
  testing::SetInts(pool, "kernel_shape", {2, 2});
  testing::SetInts(pool, "strides", {2, 2});
  testing::SetInts(b.Node("Conv", {"p2", "w3"}, {"c3"}, "sixty_four"), "pads", {1, 1, 1, 1});
  testing::SetInts(b.Node("Conv", {"c3", "w4"}, {"y"}, "ten_squared"), "pads", {1, 1, 1, 1});
  b.Output("y");
  return b.model();
}

TEST(Threads, SmallPlaneWinogradBandsAreBitIdentical) {
  const std::vector<float> x = NormalInput(17, 32 * 20 * 20);
  ThreadPool pool2(2), pool3(3), pool4(4);
  for (const int tile : {2, 4}) {
    compiler::CompileOptions options;
    options.winograd_tile = tile;
    const compiler::CompileResult r = compiler::CompileModel(SmallPlaneWinogradNet(), options);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.report.winograd_convs, 4);
    for (Isa isa : testing::AvailableIsas()) {
      Options one;
      one.isa = isa;
      const std::vector<float> want = RunWith(r.model, x, one);
      ASSERT_EQ(want.size(), 20u * 10 * 10);
      size_t splits = 0;
      for (size_t tasks : {2, 3, 4, 5, 7}) {
        Options o = one;
        o.parallel_for = &ReverseSerial;
        o.parallel_user = &splits;
        o.num_threads = tasks;
        o.min_task_work = 1;  // every step splits, however small
        EXPECT_EQ(RunWith(r.model, x, o), want) << IsaName(isa) << ", " << tasks << " tasks";
      }
      EXPECT_GE(splits, 5u * 4) << IsaName(isa);
      for (ThreadPool* pool : {&pool2, &pool3, &pool4}) {
        Options o = one;
        pool->Configure(&o);
        EXPECT_EQ(RunWith(r.model, x, o), want)
            << IsaName(isa) << ", pool of " << pool->threads() << ", tile " << tile;
      }
    }
  }
}

// Options::min_task_work decides which ops split: nothing at all when no op reaches it, every
// op with enough rows when it is one multiply-add; 0 is the runtime's default (between them).
TEST(Threads, MinTaskWorkDecidesWhatSplits) {
  const compiler::CompileResult r =
      compiler::CompileModel(WideConvNet(), compiler::CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> x = NormalInput(9, 32 * 24 * 24);
  Options one;
  const std::vector<float> want = RunWith(r.model, x, one);
  ASSERT_EQ(want.size(), 2304u);
  const auto splits_with = [&](size_t min_task_work) {
    size_t splits = 0;
    Options o = one;
    o.parallel_for = &ReverseSerial;
    o.parallel_user = &splits;
    o.num_threads = 2;
    o.min_task_work = min_task_work;
    EXPECT_EQ(RunWith(r.model, x, o), want) << "min_task_work " << min_task_work;
    return splits;
  };
  const size_t none = splits_with(size_t{1} << 60), every = splits_with(1),
               by_default = splits_with(0);
  EXPECT_EQ(none, 0u);
  EXPECT_GT(by_default, 0u);
  EXPECT_GE(every, by_default);
  EXPECT_GT(every, splits_with(size_t{1} << 20));
}

// Runs the tasks on the calling thread, then sleeps three times as long as they took and a
// millisecond more: a split that costs several times the ops it splits however slow the build
// (a fixed millisecond was within the noise of a ThreadSanitizer build's runs).
void SlowSerial(void* user, size_t tasks, void (*run)(void*, size_t), void* ctx) {
  ++*static_cast<size_t*>(user);
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < tasks; ++i) run(ctx, i);
  std::this_thread::sleep_for(3 * (std::chrono::steady_clock::now() - start) +
                              std::chrono::milliseconds(1));
}

// Options::adapt_splits (the default): the first four runs go split, split, alone, alone, then
// the faster way runs (here alone) and the other is re-timed (two runs) once every 32 runs, with
// the outputs of one thread every time; without it every run splits.
TEST(Threads, RunsAloneWhileSplittingIsSlower) {
  const compiler::CompileResult r =
      compiler::CompileModel(WideConvNet(), compiler::CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> x = NormalInput(9, 32 * 24 * 24);
  const std::vector<float> want = RunWith(r.model, x, Options());
  const auto splitting_runs = [&](bool adapt, size_t runs) {
    size_t calls = 0, split_runs = 0;
    Options o;
    o.parallel_for = &SlowSerial;
    o.parallel_user = &calls;
    o.num_threads = 2;
    o.adapt_splits = adapt;
    tools::AlignedBuffer model = tools::AllocateAligned(r.model.size());
    std::memcpy(model.data.get(), r.model.data(), r.model.size());
    size_t bytes = 0;
    EXPECT_EQ(RequiredArenaBytes(model.data.get(), r.model.size(), &bytes, o), Status::kOk);
    tools::AlignedBuffer arena = tools::AllocateAligned(bytes);
    Interpreter* interp = nullptr;
    EXPECT_EQ(
        Interpreter::Create(model.data.get(), r.model.size(), arena.data.get(), bytes, o, &interp),
        Status::kOk);
    if (interp == nullptr) return split_runs;
    for (size_t run = 0; run < runs; ++run) {  // the plan may reuse the input's room
      EXPECT_EQ(interp->SetInput(0, x.data(), x.size()), Status::kOk);
      const size_t before = calls;
      EXPECT_EQ(interp->Invoke(), Status::kOk);
      const TensorView y = interp->output(0);
      EXPECT_EQ(std::vector<float>(y.data, y.data + y.elems), want) << "run " << run;
      split_runs += calls > before;
    }
    EXPECT_EQ(interp->invocations(), runs);
    EXPECT_EQ(interp->split_invocations(), split_runs);
    return split_runs;
  };
  EXPECT_EQ(splitting_runs(false, 40), 40u);
  EXPECT_EQ(splitting_runs(true, 40), 4u);  // runs 0 and 1 (probes), 32 and 33 (a re-timing)
}

// The steps that build a conv's columns (phase planes, im2col, Winograd's fill and transforms),
// pools, elementwise ops and activations split over channels or pieces too, and a GEMM with few
// output channels over its pixels: large enough that each of them gets at least two tasks.
onnx::ModelProto WideMixedNet() {
  std::mt19937 gen(7);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 32, 96, 96});
  b.Init("w1", {64, 32, 3, 3}, values(64 * 32 * 9))
      .Init("w2", {64, 13, 5, 5}, values(64 * 13 * 25));
  b.Init("wp", {13, 64, 1, 1}, values(13 * 64));
  b.Init("w3", {64, 64, 3, 3}, values(64 * 64 * 9)).Init("w4", {64, 64, 3, 3}, values(64 * 64 * 9));
  onnx::NodeProto& c1 = b.Node("Conv", {"x", "w1"}, {"c1"}, "stride2_conv");
  testing::SetInts(c1, "pads", {1, 1, 1, 1});
  testing::SetInts(c1, "strides", {2, 2});
  b.Node("Sigmoid", {"c1"}, {"s1"}, "sigmoid");
  b.Node("Conv", {"s1", "wp"}, {"f1"}, "few_channels_pointwise");  // 13 channels, 48²: pixels split
  testing::SetInts(b.Node("Conv", {"f1", "w2"}, {"c2"}, "conv5x5"), "pads", {2, 2, 2, 2});
  onnx::NodeProto& pool = b.Node("MaxPool", {"c2"}, {"p2"}, "pool");
  testing::SetInts(pool, "kernel_shape", {3, 3});
  testing::SetInts(pool, "pads", {1, 1, 1, 1});
  testing::SetInts(pool, "strides", {2, 2});
  testing::SetInts(b.Node("Conv", {"p2", "w3"}, {"c3"}, "winograd_conv"), "pads", {1, 1, 1, 1});
  b.Node("Add", {"c3", "p2"}, {"a3"}, "residual");
  b.Node("Tanh", {"a3"}, {"t3"}, "tanh");
  testing::SetInts(b.Node("Conv", {"t3", "w4"}, {"y"}, "last_conv"), "pads", {1, 1, 1, 1});
  b.Output("y");
  return b.model();
}

TEST(Threads, ColumnsPoolsAndElementwiseOpsAreBitIdentical) {
  const std::vector<float> x = NormalInput(3, 32 * 96 * 96);
  ThreadPool pool2(2);
  for (const int tile : {2, 4}) {  // both 3×3 convs on 24² planes: Winograd F(2×2) or F(4×4)
    compiler::CompileOptions options;
    options.winograd_tile = tile;
    const compiler::CompileResult r = compiler::CompileModel(WideMixedNet(), options);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.report.winograd_convs, 2);
    ASSERT_EQ(r.report.winograd43_convs, tile == 4 ? 2 : 0);
    for (Isa isa : testing::AvailableIsas()) {
      Options one;
      one.isa = isa;
      const std::vector<float> want = RunWith(r.model, x, one);
      ASSERT_EQ(want.size(), 64u * 24 * 24);
      size_t splits = 0;
      ExpectSameWithTasks(r.model, x, one, want, &splits);
      // Per run: the 3×3 stride-2 conv's columns and GEMM, Sigmoid, the pointwise GEMM, the 5×5's columns and GEMM,
      // the pool, the Winograd fill and per band input, GEMMs and output, Add, Tanh, the last conv
      // (F(4×4) has fewer, larger tiles: one band where F(2×2) has two).
      EXPECT_GE(splits, tile == 2 ? 3u * 15 : 3u * 12) << IsaName(isa) << ", tile " << tile;
      Options o = one;
      pool2.Configure(&o);
      EXPECT_EQ(RunWith(r.model, x, o), want) << IsaName(isa) << ", pool of 2, tile " << tile;
    }
  }
}

// Stride-2 convs with few output channels over many pixels (the stems of small networks): their
// phase-plane GEMM splits over pixels — output rows when each row is its own GEMM (out_w ≥ 64),
// 64-column runs of the pitched output otherwise — then the pitched rows move into y per channel.
onnx::ModelProto FewChannelStemsNet() {
  std::mt19937 gen(11);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 130, 130});
  b.Init("w1", {8, 3, 3, 3}, values(8 * 3 * 9)).Init("w2", {6, 8, 3, 3}, values(6 * 8 * 9));
  onnx::NodeProto& c1 = b.Node("Conv", {"x", "w1"}, {"c1"}, "wide_rows");  // 65 × 65 outputs
  testing::SetInts(c1, "pads", {1, 1, 1, 1});
  testing::SetInts(c1, "strides", {2, 2});
  b.Node("Relu", {"c1"}, {"r1"}, "relu");
  onnx::NodeProto& c2 = b.Node("Conv", {"r1", "w2"}, {"y"}, "pitched");  // 33 × 33 outputs
  testing::SetInts(c2, "pads", {1, 1, 1, 1});
  testing::SetInts(c2, "strides", {2, 2});
  b.Output("y");
  return b.model();
}

TEST(Threads, FewChannelStridedConvsSplitOverPixels) {
  const compiler::CompileResult r =
      compiler::CompileModel(FewChannelStemsNet(), compiler::CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  // Per run at least both convs' pixels and a compaction; the fills of 3 and 8 channels split
  // over plane rows with 2 and 7 tasks (and 8 channels with 3), over channels otherwise.
  ExpectSameOnEveryIsa(r.model, NormalInput(12, 3 * 130 * 130), 6 * 33 * 33, 3 * 3);
}

// An inverted residual whose expansion the compiler fused into the depthwise conv (bands of
// 16 KiB): threads take ranges of its 96 expanded channels through every band.
onnx::ModelProto ExpandedBlockNet() {
  std::mt19937 gen(5);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 16, 56, 56});
  b.Init("we", {96, 16, 1, 1}, values(96 * 16)).Init("wd", {96, 1, 3, 3}, values(96 * 9));
  b.Init("wp", {24, 96, 1, 1}, values(24 * 96));
  b.Node("Conv", {"x", "we"}, {"e"}, "expand");
  b.Node("Relu", {"e"}, {"t"}, "expand_relu");
  onnx::NodeProto& dw = b.Node("Conv", {"t", "wd"}, {"d"}, "depthwise");
  testing::SetInt(dw, "group", 96);
  testing::SetInts(dw, "strides", {2, 2});
  testing::SetInts(dw, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"d"}, {"dr"}, "depthwise_relu");
  b.Node("Conv", {"dr", "wp"}, {"y"}, "project");
  b.Output("y");
  return b.model();
}

TEST(Threads, FusedExpansionsAreBitIdentical) {
  compiler::CompileOptions options;
  options.expansion_band_kb = 16;
  const compiler::CompileResult r = compiler::CompileModel(ExpandedBlockNet(), options);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.report.expansions_fused, 1);
  ExpectSameOnEveryIsa(r.model, NormalInput(4, 16 * 56 * 56), 24 * 28 * 28, 1);
}

// A 7² pointwise expansion the compiler stores Wᵀ for (160 → 344: at least doubles, 344 output
// channels end on a block that overlaps the one before) and the projection back as a GEMM: threads
// take ranges of the expansion's output channels.
onnx::ModelProto SevenBySevenExpansionNet() {
  std::mt19937 gen(7);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 160, 7, 7});
  b.Init("we", {344, 160, 1, 1}, values(344 * 160)).Init("be", {344}, values(344));
  b.Init("wp", {24, 344, 1, 1}, values(24 * 344));
  b.Node("Conv", {"x", "we", "be"}, {"e"}, "expand");
  b.Node("Relu", {"e"}, {"t"}, "expand_relu");
  b.Node("Conv", {"t", "wp"}, {"y"}, "project");
  b.Output("y");
  return b.model();
}

TEST(Threads, SevenBySevenTransposedExpansionsAreBitIdentical) {
  const compiler::CompileResult r =
      compiler::CompileModel(SevenBySevenExpansionNet(), compiler::CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.report.transposed_convs, 1);
  ExpectSameOnEveryIsa(r.model, NormalInput(9, 160 * 7 * 7), 24 * 7 * 7, 1);
}

// NHWC depthwise chains (compiler lower/conv_layout.cc): a 3×3 stride-2 conv with transposed
// weights writing 40 channels (not a multiple of any register width) channels innermost, a 3×3
// depthwise conv on 25 × 5, a pointwise 40 → 48, a 5×5 stride-2 depthwise conv and a pointwise
// conv writing NCHW: threads take ranges of channels (whole registers) of every one of them.
onnx::ModelProto DepthwiseChainNet() {
  std::mt19937 gen(11);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 50, 10});
  b.Init("w0", {40, 3, 3, 3}, values(40 * 27)).Init("b0", {40}, values(40));
  b.Init("w1", {40, 1, 3, 3}, values(40 * 9)).Init("b1", {40}, values(40));
  b.Init("w2", {48, 40, 1, 1}, values(48 * 40));
  b.Init("w3", {48, 1, 5, 5}, values(48 * 25));
  b.Init("w4", {24, 48, 1, 1}, values(24 * 48));
  onnx::NodeProto& first = b.Node("Conv", {"x", "w0", "b0"}, {"c0"}, "first");
  testing::SetInts(first, "strides", {2, 2});
  testing::SetInts(first, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c0"}, {"r0"}, "relu0");
  onnx::NodeProto& dw1 = b.Node("Conv", {"r0", "w1", "b1"}, {"c1"}, "dw1");
  testing::SetInts(dw1, "pads", {1, 1, 1, 1});
  testing::SetInt(dw1, "group", 40);
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  b.Node("Conv", {"r1", "w2"}, {"c2"}, "pw2");
  onnx::NodeProto& dw3 = b.Node("Conv", {"c2", "w3"}, {"c3"}, "dw3");
  testing::SetInts(dw3, "pads", {2, 2, 2, 2});
  testing::SetInts(dw3, "strides", {2, 2});
  testing::SetInt(dw3, "group", 48);
  b.Node("Conv", {"c3", "w4"}, {"y"}, "pw4");
  b.Output("y");
  return b.model();
}

TEST(Threads, NhwcDepthwiseChainsAreBitIdentical) {
  const compiler::CompileResult r =
      compiler::CompileModel(DepthwiseChainNet(), compiler::CompileOptions());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.report.transposed_convs, 5);  // every conv: the depthwise ones run NHWC
  ExpectSameOnEveryIsa(r.model, NormalInput(3, 3 * 50 * 10), 24 * 13 * 3, 3);
}

// Grouped convs that are not depthwise, with group counts that 2, 3 and 4 threads do not all
// divide: 3 groups on a 20² plane (phase planes), 6 groups at stride 3, 6 groups of 32 channels
// on 7² (im2col: a small plane and a deep reduction) and a pointwise conv of 8 groups (no
// scratch).
onnx::ModelProto GroupedConvNet() {
  std::mt19937 gen(13);
  const auto values = [&](size_t n) { return UniformWeights(gen, n); };
  testing::OnnxBuilder b;
  b.Input("x", {1, 48, 20, 20});
  b.Init("w1", {48, 16, 3, 3}, values(48 * 16 * 9)).Init("b1", {48}, values(48));
  b.Init("w2", {192, 8, 3, 3}, values(192 * 8 * 9));
  b.Init("w3", {192, 32, 3, 3}, values(192 * 32 * 9)).Init("b3", {192}, values(192));
  b.Init("w4", {40, 24, 1, 1}, values(40 * 24));
  onnx::NodeProto& c1 = b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "group3_planes");
  testing::SetInt(c1, "group", 3);
  testing::SetInts(c1, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  onnx::NodeProto& c2 = b.Node("Conv", {"r1", "w2"}, {"c2"}, "group6_stride3");
  testing::SetInt(c2, "group", 6);
  testing::SetInts(c2, "strides", {3, 3});
  testing::SetInts(c2, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c2"}, {"r2"}, "relu2");
  onnx::NodeProto& c3 = b.Node("Conv", {"r2", "w3", "b3"}, {"c3"}, "group6_im2col");
  testing::SetInt(c3, "group", 6);
  testing::SetInts(c3, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c3"}, {"r3"}, "relu3");
  testing::SetInt(b.Node("Conv", {"r3", "w4"}, {"y"}, "group8_pointwise"), "group", 8);
  b.Output("y");
  return b.model();
}

// The grouped net compiled for `plan_threads` (CompileOptions::threads), float or int8.
compiler::CompileResult CompileGrouped(int plan_threads, bool int8, const std::vector<float>& x) {
  compiler::CompileOptions options;
  options.threads = plan_threads;
  if (int8) {
    options.quantize_int8 = true;
    for (float gain : {1.0f, -0.5f, 2.0f})
      for (float v : x) options.calibration.push_back(v * gain);
    options.calibration_shape = {3, 48, 20, 20};
  }
  return compiler::CompileModel(GroupedConvNet(), options);
}

// Planned for 4 threads, the grouped convs split by group (one parallel step per conv, each
// task whole groups in its own scratch slice); planned for one, each group's steps split on
// their own. Both give the one-thread bits at 2, 3 and 4 tasks and with pools of 2–4 threads,
// float and int8, on every ISA.
TEST(Threads, GroupedConvsSplitByGroupAreBitIdentical) {
  const std::vector<float> x = NormalInput(21, 48 * 20 * 20);
  ThreadPool pool2(2), pool3(3), pool4(4);
  for (const bool int8 : {false, true}) {
    const compiler::CompileResult one = CompileGrouped(1, int8, x),
                                  four = CompileGrouped(4, int8, x);
    ASSERT_TRUE(one.ok) << one.error;
    ASSERT_TRUE(four.ok) << four.error;
    EXPECT_EQ(one.report.group_split_convs, 0);
    EXPECT_EQ(four.report.group_split_convs, 3) << "the three convs with scratch";
    EXPECT_GT(four.report.arena_bytes, one.report.arena_bytes);
    for (Isa isa : testing::AvailableIsas()) {
      SCOPED_TRACE(std::string(int8 ? "int8 " : "float ") + IsaName(isa));
      Options single;
      single.isa = isa;
      const std::vector<float> want = RunWith(one.model, x, single);
      ASSERT_EQ(want.size(), 40u * 7 * 7);
      EXPECT_EQ(RunWith(four.model, x, single), want) << "the 4-thread plan on one thread";
      size_t steps[2][5] = {};  // [plan of 1, of 4][tasks]
      for (size_t tasks : {2, 3, 4}) {
        Options o = single;
        o.parallel_for = &ReverseSerial;
        o.num_threads = tasks;
        o.min_task_work = 1;
        o.parallel_user = &steps[0][tasks];
        EXPECT_EQ(RunWith(one.model, x, o), want) << "plan of 1, " << tasks << " tasks";
        o.parallel_user = &steps[1][tasks];
        EXPECT_EQ(RunWith(four.model, x, o), want) << "plan of 4, " << tasks << " tasks";
        EXPECT_LT(steps[1][tasks], steps[0][tasks]) << tasks << " tasks: no split by group";
        EXPECT_GT(steps[0][tasks], 0u);
      }
      for (ThreadPool* pool : {&pool2, &pool3, &pool4})
        for (int repeat = 0; repeat < 3; ++repeat) {
          Options o = single;
          pool->Configure(&o);
          o.min_task_work = 1;
          EXPECT_EQ(RunWith(four.model, x, o), want) << "plan of 4, pool of " << pool->threads();
          EXPECT_EQ(RunWith(one.model, x, o), want) << "plan of 1, pool of " << pool->threads();
        }
    }
  }
}

// CompileOptions::threads out of 1..256 is refused, naming the option.
TEST(Threads, PlanThreadsOutOfRangeAreRefused) {
  for (int threads : {0, -2, 257}) {
    compiler::CompileOptions options;
    options.threads = threads;
    const compiler::CompileResult r = compiler::CompileModel(GroupedConvNet(), options);
    EXPECT_FALSE(r.ok) << threads;
    EXPECT_NE(r.error.find("threads"), std::string::npos) << r.error;
  }
}

TEST(Threads, ThePoolRunsEveryTaskOnce) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.threads(), 3u);
  for (size_t tasks : {1, 2, 3, 4, 17, 100}) {
    for (int job = 0; job < 200; ++job) {
      std::vector<std::atomic<int>> hits(tasks);
      for (auto& h : hits) h = 0;
      ThreadPool::ParallelFor(
          &pool, tasks,
          [](void* ctx, size_t i) {
            (*static_cast<std::vector<std::atomic<int>>*>(ctx))[i].fetch_add(1);
          },
          &hits);
      for (size_t i = 0; i < tasks; ++i)
        ASSERT_EQ(hits[i].load(), 1) << "task " << i << " of " << tasks;
    }
  }
}

}  // namespace
}  // namespace edgefold
