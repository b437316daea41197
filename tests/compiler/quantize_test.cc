// compile --quantize int8 end to end: the digits CNN against its float model (top-1 agreement
// measured here by running both, not taken from the report), the same int8 bits on every ISA,
// a mixed-precision model whose float ops are named, smaller arena and weights, format
// versions, and the calibration data and schema fields the compiler or runtime must refuse.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "edgefold/model_generated.h"
#include "kernels/act_scalar.h"
#include "kernels/int8_params.h"
#include "edgefold_compiler/compiler.h"
#include "int8_test_data.h"
#include "testing/npy_read.h"
#include "testing/onnx_builder.h"
#include "testing/run_model.h"

namespace edgefold::compiler {
namespace {

using edgefold::testing::AvailableIsas;
using edgefold::testing::RunModel;
using int8_testing::DigitsImages;
using int8_testing::SqnrDb;

const std::string kDigits = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_cnn.onnx";
const std::string kBnPositions = std::string(EDGEFOLD_MODELS_DATA_DIR) + "/bn_positions.onnx";

CompileOptions Int8Options(const kernels::testing::NpyArray& x) {
  CompileOptions o;
  o.quantize_int8 = true;
  o.calibration = x.data;
  for (size_t d : x.shape) o.calibration_shape.push_back(static_cast<int64_t>(d));
  return o;
}

size_t ArgMax(const std::vector<float>& v) {
  size_t best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

// A built ONNX model compiled float and int8, calibrated on 16 random samples of `sample`
// dims (values in [-1, 1), std::mt19937(seed)).
struct FloatAndInt8 {
  CompileResult f, q;
};
FloatAndInt8 CompileBoth(const onnx::ModelProto& model, const std::vector<size_t>& sample,
                         unsigned seed) {
  kernels::testing::NpyArray calib;
  calib.shape = {16};
  size_t elems = 16;
  for (size_t d : sample) {
    calib.shape.push_back(d);
    elems *= d;
  }
  calib.data = testing::RandomVector(elems, seed);
  return {CompileModel(model, CompileOptions()), CompileModel(model, Int8Options(calib))};
}

TEST(QuantizeInt8, DigitsAgreesWithFloatAndShrinksArenaAndWeights) {
  const kernels::testing::NpyArray x = DigitsImages();
  const CompileResult f = CompileFile(kDigits, CompileOptions());
  const CompileResult q = CompileFile(kDigits, Int8Options(x));
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  const size_t images = x.shape[0], pixels = x.data.size() / images;
  size_t agree = 0;
  double signal = 0, noise = 0;
  for (size_t i = 0; i < images; ++i) {
    const std::vector<float> in(x.data.begin() + static_cast<long>(i * pixels),
                                x.data.begin() + static_cast<long>((i + 1) * pixels));
    const auto rf = RunModel(f.model, {in}), rq = RunModel(q.model, {in});
    ASSERT_EQ(rq.status, Status::kOk) << rq.log;
    agree += ArgMax(rf.outputs[0]) == ArgMax(rq.outputs[0]);
    for (size_t k = 0; k < rf.outputs[0].size(); ++k) {
      signal += double(rf.outputs[0][k]) * rf.outputs[0][k];
      noise += (double(rf.outputs[0][k]) - rq.outputs[0][k]) *
               (double(rf.outputs[0][k]) - rq.outputs[0][k]);
    }
  }
  const double agreement = double(agree) / double(images), sqnr = 10 * std::log10(signal / noise);
  std::printf(
      "digits int8: top-1 agreement %.2f %%, output SQNR %.2f dB (report: %.2f %%, %.2f dB); arena "
      "%llu vs "
      "%llu float, weights %llu vs %llu\n",
      100 * agreement, sqnr, 100 * q.report.quant.top1_agreement, q.report.quant.output_sqnr_db,
      (unsigned long long)q.report.arena_bytes, (unsigned long long)f.report.arena_bytes,
      (unsigned long long)q.report.weight_bytes, (unsigned long long)f.report.weight_bytes);
  EXPECT_GE(agreement, 0.99);
  EXPECT_NEAR(agreement, q.report.quant.top1_agreement, 1e-9);  // the report measures what runs
  EXPECT_NEAR(sqnr, q.report.quant.output_sqnr_db, 0.01);
  EXPECT_TRUE(q.report.quant.float_ops.empty());
  EXPECT_LT(q.report.arena_bytes, f.report.arena_bytes);
  EXPECT_EQ(q.report.quant.float_arena_bytes, f.report.arena_bytes);
  EXPECT_LT(q.report.weight_bytes * 2, f.report.weight_bytes);
  EXPECT_EQ(fb::GetModel(f.model.data())->format_version(),
            1u);  // float models are written as before
  EXPECT_EQ(fb::GetModel(q.model.data())->format_version(), 2u);
}

TEST(QuantizeInt8, SameBitsOnEveryIsa) {
  const kernels::testing::NpyArray x = DigitsImages();
  const CompileResult q = CompileFile(kDigits, Int8Options(x));
  ASSERT_TRUE(q.ok) << q.error;
  const size_t pixels = x.data.size() / x.shape[0];
  for (size_t i = 0; i < 16; ++i) {
    const std::vector<float> in(x.data.begin() + static_cast<long>(i * pixels),
                                x.data.begin() + static_cast<long>((i + 1) * pixels));
    const auto want = RunModel(q.model, {in}, Isa::kScalar);
    for (Isa isa : AvailableIsas())
      EXPECT_EQ(RunModel(q.model, {in}, isa).outputs, want.outputs) << IsaName(isa);
  }
}

// bn_positions has Sigmoid, HardSwish, Mul, Div, ReduceMean...: they stay float, named.
TEST(QuantizeInt8, MixedPrecisionNamesTheFloatOpsAndRuns) {
  kernels::testing::NpyArray x;
  std::string error;
  ASSERT_TRUE(kernels::testing::ReadNpyF32(
      std::string(EDGEFOLD_MODELS_DATA_DIR) + "/bn_positions.input.npy", &x, &error));
  kernels::testing::NpyArray calib = x;
  calib.shape[0] = 8;
  calib.data.clear();
  for (size_t s = 0; s < 8; ++s)
    for (size_t i = 0; i < x.data.size(); ++i)
      calib.data.push_back(x.data[i] * (0.6f + 0.1f * float(s)) + 0.01f * float((i * 7 + s) % 13));
  const CompileResult f = CompileFile(kBnPositions, CompileOptions());
  const CompileResult q = CompileFile(kBnPositions, Int8Options(calib));
  ASSERT_TRUE(q.ok) << q.error;
  ASSERT_FALSE(q.report.quant.float_ops.empty());
  ASSERT_FALSE(q.report.quant.layers.empty());
  EXPECT_GT(q.report.quant.boundaries, 0);
  bool named = false;
  for (const std::string& s : q.report.quant.float_ops)
    named = named || s.find("): ") != std::string::npos;
  EXPECT_TRUE(named) << q.report.quant.float_ops[0];
  const auto rf = RunModel(f.model, {x.data}), rq = RunModel(q.model, {x.data});
  ASSERT_EQ(rq.status, Status::kOk) << rq.log;
  EXPECT_GT(SqnrDb(rf.outputs[0], rq.outputs[0]), 15.0);
}

// Activations other than the clamps (hard-swish, sigmoid, SiLU, tanh, GELU) become LutInt8
// ops: a 256-entry table per tensor, filled with the activation of every dequantized input as
// Quantize rounds it. The table is checked entry by entry against that definition, the model
// has no float op left, and its output stays close to float.
TEST(QuantizeInt8, ActivationsBecomeLookupTables) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 8, 8});
  b.Init("w1", {8, 3, 3, 3}, testing::RandomVector(216, 1))
      .Init("b1", {8}, testing::RandomVector(8, 2));
  b.Init("w2", {8, 8, 1, 1}, testing::RandomVector(64, 3))
      .Init("b2", {8}, testing::RandomVector(8, 4));
  b.Init("w3", {8, 8, 1, 1}, testing::RandomVector(64, 5))
      .Init("b3", {8}, testing::RandomVector(8, 6));
  testing::SetInts(b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  b.Node("HardSwish", {"c1"}, {"a1"}, "hswish");
  b.Node("Conv", {"a1", "w2", "b2"}, {"c2"}, "conv2");
  b.Node("Sigmoid", {"c2"}, {"a2"}, "sigmoid");
  b.Node("Conv", {"a2", "w3", "b3"}, {"c3"}, "conv3");
  b.Node("Tanh", {"c3"}, {"y"}, "tanh");
  b.Output("y");
  const FloatAndInt8 both = CompileBoth(b.model(), {3, 8, 8}, 7);
  const CompileResult& f = both.f;
  const CompileResult& q = both.q;
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_TRUE(q.report.quant.float_ops.empty()) << q.report.quant.float_ops[0];
  const fb::Model* m = testing::ModelOf(q.model);
  const auto luts = testing::OpsOfType(m, fb::OpType::LutInt8);
  ASSERT_EQ(luts.size(), 3u);
  const kernels::ActKind kinds[3] = {kernels::ActKind::kHardSwish, kernels::ActKind::kSigmoid,
                                     kernels::ActKind::kTanh};
  for (size_t i = 0; i < 3; ++i) {
    const fb::Tensor* x = m->tensors()->Get(static_cast<uint32_t>(luts[i]->inputs()->Get(0)));
    const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(luts[i]->inputs()->Get(1)));
    const fb::Tensor* y = m->tensors()->Get(static_cast<uint32_t>(luts[i]->outputs()->Get(0)));
    const float sx = x->quant()->scales()->Get(0), sy = y->quant()->scales()->Get(0);
    const int zx = x->quant()->zero_points()->Get(0), zy = y->quant()->zero_points()->Get(0);
    const auto* table = reinterpret_cast<const int8_t*>(m->weights()->data() + t->weight_offset());
    int bad = 0;
    for (int v = -128; v < 128; ++v) {
      const float real =
          kernels::ActOne(static_cast<float>(v - zx) * sx, kernels::Activation{kinds[i], 0, 0});
      const float scaled = std::nearbyint(real / sy);  // half to even, as Quantize
      const int want =
          static_cast<int>(std::min(127.0f, std::max(-128.0f, scaled + static_cast<float>(zy))));
      bad += table[v + 128] != want;
    }
    EXPECT_EQ(bad, 0) << "table " << i;
  }
  std::vector<float> input = testing::RandomVector(3 * 64, 8);
  {  // a table of another length is refused by name (its shape rewritten in the file)
    std::vector<uint8_t> bytes = q.model;
    const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(luts[0]->inputs()->Get(1)));
    const size_t shape_at =
        static_cast<size_t>(reinterpret_cast<const uint8_t*>(t->shape()->data()) - q.model.data());
    const int32_t len = 128;
    std::memcpy(bytes.data() + shape_at, &len, 4);
    const auto r = RunModel(bytes, {input});
    EXPECT_NE(r.status, Status::kOk);
    EXPECT_NE(r.log.find("hswish"), std::string::npos) << r.log;
  }
  const auto rf = RunModel(f.model, {input}), rq = RunModel(q.model, {input});
  ASSERT_EQ(rq.status, Status::kOk) << rq.log;
  EXPECT_GT(SqnrDb(rf.outputs[0], rq.outputs[0]), 25.0);
}

// A squeeze-excitation block (global pool → 1×1 convs → hard-sigmoid → Mul with the block's
// input) is int8 end to end: the channel-scale Mul becomes MulInt8 (one value per (n, c)),
// either operand order gives the same bits, and the output stays close to float.
TEST(QuantizeInt8, SqueezeExcitationMulIsInt8) {
  std::vector<uint8_t> models[2];
  std::vector<float> want;
  for (int order = 0; order < 2; ++order) {
    testing::OnnxBuilder b;
    b.Input("x", {1, 8, 6, 6});
    b.Init("w1", {8, 8, 3, 3}, testing::RandomVector(576, 11))
        .Init("b1", {8}, testing::RandomVector(8, 12));
    b.Init("w2", {4, 8, 1, 1}, testing::RandomVector(32, 13))
        .Init("b2", {4}, testing::RandomVector(4, 14));
    b.Init("w3", {8, 4, 1, 1}, testing::RandomVector(32, 15))
        .Init("b3", {8}, testing::RandomVector(8, 16));
    b.Init("w4", {8, 8, 1, 1}, testing::RandomVector(64, 17))
        .Init("b4", {8}, testing::RandomVector(8, 18));
    testing::SetInts(b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
    b.Node("Relu", {"c1"}, {"r1"}, "relu1");
    b.Node("GlobalAveragePool", {"r1"}, {"p"}, "squeeze");
    b.Node("Conv", {"p", "w2", "b2"}, {"c2"}, "fc1");
    b.Node("Relu", {"c2"}, {"r2"}, "relu2");
    b.Node("Conv", {"r2", "w3", "b3"}, {"c3"}, "fc2");
    b.Node("HardSigmoid", {"c3"}, {"s"}, "gate");
    b.Node("Mul",
           order == 0 ? std::vector<std::string>{"r1", "s"} : std::vector<std::string>{"s", "r1"},
           {"e"}, "excite");
    b.Node("Conv", {"e", "w4", "b4"}, {"y"}, "project");
    b.Output("y");
    const FloatAndInt8 both = CompileBoth(b.model(), {8, 6, 6}, 19);
    const CompileResult& f = both.f;
    const CompileResult& q = both.q;
    ASSERT_TRUE(f.ok) << f.error;
    ASSERT_TRUE(q.ok) << q.error;
    EXPECT_TRUE(q.report.quant.float_ops.empty()) << q.report.quant.float_ops[0];
    EXPECT_EQ(testing::CountOps(q.model, fb::OpType::MulInt8), 1u);
    const std::vector<float> input = testing::RandomVector(8 * 36, 20);
    const auto rf = RunModel(f.model, {input}), rq = RunModel(q.model, {input});
    ASSERT_EQ(rq.status, Status::kOk) << rq.log;
    EXPECT_GT(SqnrDb(rf.outputs[0], rq.outputs[0]), 25.0);
    if (order == 0)
      want = rq.outputs[0];
    else
      EXPECT_EQ(rq.outputs[0], want) << "Mul(s, x) and Mul(x, s) differ";
  }
}

// Concat is int8 (a byte copy): its inputs and output share one range (the union), a branch
// whose scale is its producer's (a max pool follows its input's) is requantized by a lookup
// table first; an Inception-style block stays int8 end to end and close to float.
TEST(QuantizeInt8, ConcatIsInt8WithOneScale) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 8, 8});
  b.Init("w0", {3, 3, 1, 1}, testing::RandomVector(9, 30))
      .Init("b0", {3}, testing::RandomVector(3, 29));
  b.Init("w1", {4, 3, 1, 1}, testing::RandomVector(12, 31))
      .Init("b1", {4}, testing::RandomVector(4, 32));
  b.Init("w2", {6, 3, 3, 3}, testing::RandomVector(162, 33))
      .Init("b2", {6}, testing::RandomVector(6, 34));
  b.Init("w3", {5, 13, 3, 3}, testing::RandomVector(585, 35))
      .Init("b3", {5}, testing::RandomVector(5, 36));
  b.Node("Conv", {"x", "w0", "b0"}, {"s"}, "stem");
  b.Node("Conv", {"s", "w1", "b1"}, {"c1"}, "branch1x1");
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  testing::SetInts(b.Node("Conv", {"s", "w2", "b2"}, {"c2"}, "branch3x3"), "pads", {1, 1, 1, 1});
  auto& pool = b.Node("MaxPool", {"s"}, {"p"}, "branch_pool");
  testing::SetInts(pool, "kernel_shape", {3, 3});
  testing::SetInts(pool, "pads", {1, 1, 1, 1});
  testing::SetInt(b.Node("Concat", {"r1", "c2", "p"}, {"cat"}, "concat"), "axis", 1);
  testing::SetInts(b.Node("Conv", {"cat", "w3", "b3"}, {"y"}, "head"), "pads", {1, 1, 1, 1});
  b.Output("y");
  const FloatAndInt8 both = CompileBoth(b.model(), {3, 8, 8}, 37);
  const CompileResult& f = both.f;
  const CompileResult& q = both.q;
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_TRUE(q.report.quant.float_ops.empty()) << q.report.quant.float_ops[0];
  const fb::Model* m = testing::ModelOf(q.model);
  const auto concats = testing::OpsOfType(m, fb::OpType::Concat);
  ASSERT_EQ(concats.size(), 1u);
  const fb::Tensor* y = m->tensors()->Get(static_cast<uint32_t>(concats[0]->outputs()->Get(0)));
  ASSERT_EQ(y->dtype(), fb::DType::Int8);
  for (int32_t in : *concats[0]->inputs()) {
    const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(in));
    EXPECT_EQ(t->dtype(), fb::DType::Int8);
    EXPECT_EQ(t->quant()->scales()->Get(0), y->quant()->scales()->Get(0)) << t->name()->str();
    EXPECT_EQ(t->quant()->zero_points()->Get(0), y->quant()->zero_points()->Get(0))
        << t->name()->str();
  }
  EXPECT_EQ(testing::CountOps(q.model, fb::OpType::LutInt8), 1u)
      << "the pool branch is requantized";
  for (unsigned seed = 40; seed < 44; ++seed) {
    const std::vector<float> input = testing::RandomVector(3 * 64, seed);
    const auto rf = RunModel(f.model, {input}), rq = RunModel(q.model, {input});
    ASSERT_EQ(rq.status, Status::kOk) << rq.log;
    EXPECT_GT(SqnrDb(rf.outputs[0], rq.outputs[0]), 25.0) << seed;
  }
  {  // an int8 Concat input of another scale is refused by name (its scale rewritten in the file)
    std::vector<uint8_t> bytes = q.model;
    const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(concats[0]->inputs()->Get(0)));
    const size_t scale_at = static_cast<size_t>(
        reinterpret_cast<const uint8_t*>(t->quant()->scales()->data()) - q.model.data());
    const float other = 2.0f * t->quant()->scales()->Get(0);
    std::memcpy(bytes.data() + scale_at, &other, 4);
    const auto r = RunModel(bytes, {testing::RandomVector(3 * 64, 45)});
    EXPECT_EQ(r.status, Status::kInvalidModel);
    EXPECT_NE(r.log.find("Concat 'concat': int8 input '" + t->name()->str() + "'"),
              std::string::npos)
        << r.log;
  }
}

// The copies stay int8 in their producer's scale: a ShuffleNet-style channel shuffle (Reshape,
// Transpose, Reshape), a Slice of half the channels and a constant Pad (value 0.25, quantized
// like the tensor) between two int8 convolutions; no float op, close to float.
TEST(QuantizeInt8, ShuffleSliceAndPadStayInt8) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 4, 6, 6});
  b.Init("w1", {8, 4, 1, 1}, testing::RandomVector(32, 51))
      .Init("b1", {8}, testing::RandomVector(8, 52));
  b.Init("w2", {5, 4, 3, 3}, testing::RandomVector(180, 53))
      .Init("b2", {5}, testing::RandomVector(5, 54));
  b.InitInt64("shape5", {5}, {1, 2, 4, 6, 6}).InitInt64("shape4", {4}, {1, 8, 6, 6});
  b.InitInt64("starts", {1}, {0}).InitInt64("ends", {1}, {4}).InitInt64("axes", {1}, {1});
  b.InitInt64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1}).Init("pad_value", {}, {0.25f});
  b.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  b.Node("Relu", {"c1"}, {"r1"}, "relu1");
  b.Node("Reshape", {"r1", "shape5"}, {"g"}, "group");
  testing::SetInts(b.Node("Transpose", {"g"}, {"t"}, "shuffle"), "perm", {0, 2, 1, 3, 4});
  b.Node("Reshape", {"t", "shape4"}, {"u"}, "ungroup");
  b.Node("Slice", {"u", "starts", "ends", "axes"}, {"half"}, "half");
  b.Node("Pad", {"half", "pads", "pad_value"}, {"padded"}, "pad");
  b.Node("Conv", {"padded", "w2", "b2"}, {"y"}, "conv2");
  b.Output("y");
  const FloatAndInt8 both = CompileBoth(b.model(), {4, 6, 6}, 55);
  const CompileResult& f = both.f;
  const CompileResult& q = both.q;
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_TRUE(q.report.quant.float_ops.empty()) << q.report.quant.float_ops[0];
  const fb::Model* m = testing::ModelOf(q.model);
  for (fb::OpType type : {fb::OpType::Transpose, fb::OpType::Slice, fb::OpType::Pad}) {
    const auto ops = testing::OpsOfType(m, type);
    ASSERT_EQ(ops.size(), 1u) << fb::EnumNameOpType(type);
    EXPECT_EQ(m->tensors()->Get(static_cast<uint32_t>(ops[0]->outputs()->Get(0)))->dtype(),
              fb::DType::Int8)
        << fb::EnumNameOpType(type);
  }
  for (unsigned seed = 56; seed < 60; ++seed) {
    const std::vector<float> input = testing::RandomVector(4 * 36, seed);
    const auto rf = RunModel(f.model, {input}), rq = RunModel(q.model, {input});
    ASSERT_EQ(rq.status, Status::kOk) << rq.log;
    EXPECT_GT(SqnrDb(rf.outputs[0], rq.outputs[0]), 25.0) << seed;
  }
}

// The memory goal on the MLPerf-Tiny-style keyword spotter: int8 arena ≤ 1/3 of float, weights
// below 1/2 (int32 biases and multipliers and 64-byte alignment keep it above 1/4). The float
// plan is its lower bound, two 32,000-byte activations (the first conv takes im2col's
// 20,000-byte scratch, ConvPrefersIm2col; with the phase planes' 44,032 it was 78,016 bytes and
// the bound 1/3.5); int8 plans 20,864 bytes.
TEST(QuantizeInt8, DsCnnArenaIsAtMostAThirdOfFloat) {
  kernels::testing::NpyArray x;
  std::string error;
  ASSERT_TRUE(kernels::testing::ReadNpyF32(
      std::string(EDGEFOLD_MODELS_DATA_DIR) + "/ds_cnn.input.npy", &x, &error));
  kernels::testing::NpyArray calib = x;
  calib.shape[0] = 16;
  calib.data.clear();
  for (size_t s = 0; s < 16; ++s)
    for (size_t i = 0; i < x.data.size(); ++i)
      calib.data.push_back(x.data[(i + 37 * s) % x.data.size()] * (0.5f + 0.06f * float(s)));
  const std::string model = std::string(EDGEFOLD_MODELS_DATA_DIR) + "/ds_cnn.onnx";
  const CompileResult f = CompileFile(model, CompileOptions());
  const CompileResult q = CompileFile(model, Int8Options(calib));
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  std::printf("ds_cnn: arena %llu int8 vs %llu float, weights %llu vs %llu, output SQNR %.2f dB\n",
              (unsigned long long)q.report.arena_bytes, (unsigned long long)f.report.arena_bytes,
              (unsigned long long)q.report.weight_bytes, (unsigned long long)f.report.weight_bytes,
              q.report.quant.output_sqnr_db);
  EXPECT_TRUE(q.report.quant.float_ops.empty());
  EXPECT_LE(double(q.report.arena_bytes) * 3.0, double(f.report.arena_bytes));
  EXPECT_LT(q.report.weight_bytes * 2, f.report.weight_bytes);
}

// --quantize-percentile clips: some layer's int8 range ends inside its observed range.
TEST(QuantizeInt8, PercentileClipsTheRange) {
  CompileOptions o = Int8Options(DigitsImages());
  o.quantize_percentile = 99.9;
  const CompileResult q = CompileFile(kDigits, o);
  ASSERT_TRUE(q.ok) << q.error;
  bool clipped = false;
  for (const QuantLayerReport& l : q.report.quant.layers) {
    EXPECT_LE(l.clip_hi, l.range_max + l.out_scale) << l.name;
    clipped = clipped || l.clip_hi < l.range_max - l.out_scale;
  }
  EXPECT_TRUE(clipped);
  EXPECT_GE(q.report.quant.top1_agreement, 0.95);
}

// --quantize-clip mse: every range inside the observed one, the report says how it was chosen,
// and the network still agrees with float.
TEST(QuantizeInt8, MseClippingStaysInsideTheObservedRange) {
  CompileOptions o = Int8Options(DigitsImages());
  o.quantize_mse = true;
  const CompileResult q = CompileFile(kDigits, o);
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.report.quant.clipping, "mse");
  for (const QuantLayerReport& l : q.report.quant.layers) {
    EXPECT_LE(l.clip_hi, std::max(0.0, l.range_max) + l.out_scale) << l.name;
    EXPECT_GE(l.clip_lo, std::min(0.0, l.range_min) - l.out_scale) << l.name;
  }
  EXPECT_GE(q.report.quant.top1_agreement, 0.97);
  o.quantize_percentile = 99.0;
  const CompileResult both = CompileFile(kDigits, o);
  EXPECT_FALSE(both.ok);
  EXPECT_NE(both.error.find("--quantize-clip mse and --quantize-percentile do not combine"),
            std::string::npos)
      << both.error;
}

// The largest |q| over the int8 weights (input 1) of every ConvInt8 and GemmInt8 of `model`, and
// whether each of those layers' rows keep every even-k pair within 128 (kernels::S8PairsFitU8).
std::pair<int, bool> WeightRangeAndPairs(const std::vector<uint8_t>& model) {
  const fb::Model* m = fb::GetModel(model.data());
  int top = 0;
  bool pairs_fit = true;
  size_t layers = 0;
  for (const fb::Operator* op : *m->operators()) {
    if (op->type() != fb::OpType::ConvInt8 && op->type() != fb::OpType::GemmInt8) continue;
    const fb::Tensor* w = m->tensors()->Get(static_cast<uint32_t>(op->inputs()->Get(1)));
    const int8_t* q = reinterpret_cast<const int8_t*>(m->weights()->data() + w->weight_offset());
    const size_t rows = static_cast<size_t>(w->shape()->Get(0)), per = w->bytes() / rows;
    for (size_t e = 0; e < w->bytes(); ++e) top = std::max(top, std::abs(int{q[e]}));
    pairs_fit = pairs_fit && kernels::S8PairsFitU8(q, rows, per, per);
    ++layers;
  }
  EXPECT_GT(layers, 1u);
  return {top, pairs_fit};
}

// --quantize-weight-bits 7: weights in [−64, 64] (each channel reaching 64: its scale is
// max |w| / 64), every pair within the u8·s8 tile's bound, the same bits on every ISA, still
// agreeing with float; 8 keeps [−127, 127]; other values, or without --quantize, are refused.
TEST(QuantizeInt8, SevenBitWeightsFitTheU8PairBound) {
  CompileOptions o = Int8Options(DigitsImages());
  const CompileResult eight = CompileFile(kDigits, o);
  ASSERT_TRUE(eight.ok) << eight.error;
  EXPECT_EQ(WeightRangeAndPairs(eight.model).first, 127);
  o.quantize_weight_bits = 7;
  const CompileResult seven = CompileFile(kDigits, o);
  ASSERT_TRUE(seven.ok) << seven.error;
  const auto [top, pairs_fit] = WeightRangeAndPairs(seven.model);
  EXPECT_EQ(top, 64);
  EXPECT_TRUE(pairs_fit);
  EXPECT_GE(seven.report.quant.top1_agreement, 0.95);
  EXPECT_LT(seven.report.quant.output_sqnr_db, eight.report.quant.output_sqnr_db + 1.0);
  const kernels::testing::NpyArray x = DigitsImages();
  const size_t pixels = x.data.size() / x.shape[0];
  for (size_t i = 0; i < 4; ++i) {
    const std::vector<float> in(x.data.begin() + static_cast<long>(i * pixels),
                                x.data.begin() + static_cast<long>((i + 1) * pixels));
    const auto want = RunModel(seven.model, {in}, Isa::kScalar);
    for (Isa isa : AvailableIsas())
      EXPECT_EQ(RunModel(seven.model, {in}, isa).outputs, want.outputs) << IsaName(isa);
  }
  o.quantize_weight_bits = 6;
  const CompileResult six = CompileFile(kDigits, o);
  EXPECT_FALSE(six.ok);
  EXPECT_NE(six.error.find("--quantize-weight-bits must be 7 or 8, got 6"), std::string::npos)
      << six.error;
  CompileOptions plain;
  plain.quantize_weight_bits = 7;
  const CompileResult float_model = CompileFile(kDigits, plain);
  EXPECT_FALSE(float_model.ok);
  EXPECT_NE(float_model.error.find("--quantize-weight-bits needs --quantize int8"),
            std::string::npos)
      << float_model.error;
}

TEST(QuantizeInt8, RefusesBadCalibrationData) {
  kernels::testing::NpyArray x = DigitsImages();
  CompileOptions o = Int8Options(x);
  o.calibration_shape = {450, 1, 64};  // right count, wrong shape
  CompileResult r = CompileFile(kDigits, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("calibration data has shape [450, 1, 64]"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("needs [-1, 1, 8, 8]"), std::string::npos) << r.error;
  o = Int8Options(x);
  o.calibration[70] = std::numeric_limits<float>::quiet_NaN();
  r = CompileFile(kDigits, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("NaN at flat index 70 (sample 1)"), std::string::npos) << r.error;
  o = Int8Options(x);
  o.quantize_percentile = 30;
  EXPECT_FALSE(CompileFile(kDigits, o).ok);
}

// ConvInt8 builds its im2col in chunks of output rows, as many as the plan's scratch holds: a
// plan of one row's bytes (another compiler's choice) gives the same bits, less than a row is
// refused by name.
TEST(QuantizeInt8, Im2colChunksFollowThePlannedScratch) {
  const kernels::testing::NpyArray x = DigitsImages();
  const CompileResult q = CompileFile(kDigits, Int8Options(x));
  ASSERT_TRUE(q.ok) << q.error;
  const fb::Model* m = fb::GetModel(q.model.data());
  const std::vector<float> in(x.data.begin(), x.data.begin() + 64);
  const auto want = RunModel(q.model, {in});
  ASSERT_EQ(want.status, Status::kOk) << want.log;
  int patched = 0;
  for (const fb::Operator* op : *m->operators()) {
    if (op->type() != fb::OpType::ConvInt8 || op->scratch_bytes() == 0) continue;
    const auto* o = op->options_as_ConvInt8Options();
    const fb::Tensor* w = m->tensors()->Get(static_cast<uint32_t>(op->inputs()->Get(1)));
    const fb::Tensor* y = m->tensors()->Get(static_cast<uint32_t>(op->outputs()->Get(0)));
    if (o->group() != 1) continue;  // depthwise planes need their whole size
    const uint64_t row =
        uint64_t(w->shape()->Get(1)) * w->shape()->Get(2) * w->shape()->Get(3) * y->shape()->Get(3);
    const auto* table =
        reinterpret_cast<const flatbuffers::Table*>(op);  // an Operator is its table
    const size_t at =
        static_cast<size_t>(table->GetAddressOf(fb::Operator::VT_SCRATCH_BYTES) - q.model.data());
    std::vector<uint8_t> bytes = q.model;
    std::memcpy(bytes.data() + at, &row, 8);
    const auto one_row = RunModel(bytes, {in});
    ASSERT_EQ(one_row.status, Status::kOk) << one_row.log;
    EXPECT_EQ(one_row.outputs, want.outputs) << op->name()->str();
    const uint64_t short_row = row - 1;
    std::memcpy(bytes.data() + at, &short_row, 8);
    const auto refused = RunModel(bytes, {in});
    EXPECT_EQ(refused.status, Status::kInvalidModel);
    EXPECT_NE(refused.log.find("needs " + std::to_string(row) +
                               " scratch bytes for one output row of im2col"),
              std::string::npos)
        << refused.log;
    ++patched;
  }
  EXPECT_GE(patched, 1);
}

// The runtime refuses what the schema allows but the scheme does not: zero or negative scales,
// zero points outside int8.
TEST(QuantizeInt8, RuntimeRefusesBadScalesAndZeroPoints) {
  const CompileResult q = CompileFile(kDigits, Int8Options(DigitsImages()));
  ASSERT_TRUE(q.ok) << q.error;
  const fb::Model* m = fb::GetModel(q.model.data());
  size_t tensor = 0;
  while (m->tensors()->Get(static_cast<uint32_t>(tensor))->dtype() != fb::DType::Int8 ||
         m->tensors()->Get(static_cast<uint32_t>(tensor))->quant()->scales()->size() != 1)
    ++tensor;
  const auto* quant = m->tensors()->Get(static_cast<uint32_t>(tensor))->quant();
  const size_t scale_at = static_cast<size_t>(
      reinterpret_cast<const uint8_t*>(quant->scales()->data()) - q.model.data());
  const size_t zp_at = static_cast<size_t>(
      reinterpret_cast<const uint8_t*>(quant->zero_points()->data()) - q.model.data());
  const std::vector<float> in(64, 0.5f);
  for (float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity()}) {
    std::vector<uint8_t> bytes = q.model;
    std::memcpy(bytes.data() + scale_at, &bad, 4);
    const auto r = RunModel(bytes, {in});
    EXPECT_EQ(r.status, Status::kInvalidModel);
    EXPECT_NE(r.log.find("scale is zero, negative or not finite"), std::string::npos) << r.log;
  }
  std::vector<uint8_t> bytes = q.model;
  const int32_t zp = 200;
  std::memcpy(bytes.data() + zp_at, &zp, 4);
  const auto r = RunModel(bytes, {in});
  EXPECT_EQ(r.status, Status::kInvalidModel);
  EXPECT_NE(r.log.find("zero point outside int8"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace edgefold::compiler
