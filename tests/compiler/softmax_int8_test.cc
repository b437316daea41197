// compile --quantize int8 of a classifier ending in Softmax: the Softmax becomes SoftmaxInt8
// (output 1/256, −128; listed in the report), agrees with the float model's top-1 and, against
// float softmax of its own dequantized logits, is within half an output step except where a
// probability saturates at 255/256; the same bytes on every ISA. Then the schema fields of the
// op corrupted in the file (table length, values, dtype; output scale and zero point; X's
// dtype): refused at Create with a message naming the node or tensor, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>

#include "edgefold/model_generated.h"
#include "edgefold_compiler/compiler.h"
#include "int8_test_data.h"
#include "testing/onnx_builder.h"
#include "testing/run_model.h"

namespace edgefold::compiler {
namespace {

using edgefold::testing::RunModel;
using int8_testing::DigitsImages;

const std::string kDigits = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_cnn.onnx";

// The digits CNN (trained) with a Softmax on its logits: outputs "logits", then "probs".
onnx::ModelProto DigitsWithSoftmax() {
  onnx::ModelProto m;
  std::ifstream f(kDigits, std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&f)) << kDigits;
  onnx::GraphProto* g = m.mutable_graph();
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Softmax");
  n->set_name("softmax");
  n->add_input(g->output(0).name());
  n->add_output("probs");
  onnx::ValueInfoProto* probs = g->add_output();
  *probs = g->output(0);
  probs->set_name("probs");
  return m;
}

struct Compiled {
  CompileResult f, q;
  kernels::testing::NpyArray x;
};

const Compiled& Digits() {
  static const Compiled c = [] {
    Compiled r;
    r.x = DigitsImages();
    CompileOptions o;
    o.quantize_int8 = true;
    o.calibration = r.x.data;
    for (size_t d : r.x.shape) o.calibration_shape.push_back(static_cast<int64_t>(d));
    const onnx::ModelProto model = DigitsWithSoftmax();
    r.f = CompileModel(model, CompileOptions());
    r.q = CompileModel(model, o);
    return r;
  }();
  return c;
}

std::vector<float> Image(const kernels::testing::NpyArray& x, size_t i) {
  const size_t pixels = x.data.size() / x.shape[0];
  return std::vector<float>(x.data.begin() + static_cast<long>(i * pixels),
                            x.data.begin() + static_cast<long>((i + 1) * pixels));
}

size_t ArgMax(const std::vector<float>& v) {
  return static_cast<size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

TEST(SoftmaxInt8, ClassifierAgreesWithFloatWithinHalfAStep) {
  const Compiled& c = Digits();
  ASSERT_TRUE(c.f.ok) << c.f.error;
  ASSERT_TRUE(c.q.ok) << c.q.error;
  EXPECT_EQ(edgefold::testing::CountOps(c.q.model, fb::OpType::SoftmaxInt8), 1u);
  EXPECT_EQ(edgefold::testing::CountOps(c.q.model, fb::OpType::Softmax), 0u);
  EXPECT_TRUE(c.q.report.quant.float_ops.empty()) << c.q.report.quant.float_ops[0];
  bool listed = false;
  for (const auto& l : c.q.report.quant.layers)
    if (l.type == "SoftmaxInt8") {
      listed = true;
      EXPECT_EQ(l.name, "softmax");
      EXPECT_EQ(l.out_scale, 1.0f / 256);
      EXPECT_EQ(l.out_zero_point, -128);
    }
  EXPECT_TRUE(listed) << "the report lists the int8 Softmax";

  const size_t images = c.x.shape[0];
  size_t agree = 0, saturated = 0;
  double err_rule = 0, err_rule_unsaturated = 0, err_float = 0;
  for (size_t i = 0; i < images; ++i) {
    const std::vector<float> in = Image(c.x, i);
    const auto rf = RunModel(c.f.model, {in}), rq = RunModel(c.q.model, {in});
    ASSERT_EQ(rq.status, Status::kOk) << rq.log;
    const std::vector<float>& logits = rq.outputs[0];  // the int8 logits, dequantized exactly
    const std::vector<float>& probs = rq.outputs[1];   // (y + 128)/256
    double mx = logits[0], sum = 0;
    for (float v : logits) mx = std::max(mx, double(v));
    for (float v : logits) sum += std::exp(double(v) - mx);
    for (size_t k = 0; k < probs.size(); ++k) {
      const double p = std::exp(double(logits[k]) - mx) / sum, e = std::fabs(probs[k] - p);
      err_rule = std::max(err_rule, e);
      if (p <= 255.5 / 256)
        err_rule_unsaturated = std::max(err_rule_unsaturated, e);
      else
        ++saturated;
      err_float = std::max(err_float, std::fabs(double(probs[k]) - rf.outputs[1][k]));
    }
    agree += ArgMax(probs) == ArgMax(rf.outputs[1]);
  }
  const double agreement = double(agree) / double(images);
  std::printf(
      "digits + Softmax int8 (%zu images): top-1 agreement with float %.2f %%; max |int8 softmax - "
      "float "
      "softmax of its dequantized logits| %.6f (%.6f where p <= 255.5/256; %zu saturated outputs), "
      "vs the "
      "float model's softmax %.6f; 1/512 = %.6f\n",
      images, 100 * agreement, err_rule, err_rule_unsaturated, saturated, err_float, 1.0 / 512,
      1.0 / 512);
  EXPECT_GE(agreement, 0.99);
  EXPECT_LE(err_rule_unsaturated, 1.0 / 512 + 1e-5);  // rounding, plus the table's 2^-21 steps
  EXPECT_LE(err_rule, 1.0 / 256 + 1e-5);              // 1 → 255/256 at worst
}

TEST(SoftmaxInt8, SameBytesOnEveryIsa) {
  const Compiled& c = Digits();
  ASSERT_TRUE(c.q.ok) << c.q.error;
  for (size_t i = 0; i < 16; ++i) {
    const std::vector<float> in = Image(c.x, i);
    const auto want = RunModel(c.q.model, {in}, Isa::kScalar);
    ASSERT_EQ(want.status, Status::kOk) << want.log;
    for (Isa isa : edgefold::testing::AvailableIsas())
      EXPECT_EQ(RunModel(c.q.model, {in}, isa).outputs, want.outputs) << IsaName(isa);
  }
}

// A non-last axis stays float, named.
TEST(SoftmaxInt8, OtherAxesStayFloat) {
  edgefold::testing::OnnxBuilder b(13, 8);
  b.GraphName("axis1").Input("x", {1, 4, 3, 3}).Output("y", {1, 4, 3, 3});
  edgefold::testing::SetInt(b.Node("Softmax", {"x"}, {"y"}, "channel_softmax"), "axis", 1);
  CompileOptions o;
  o.quantize_int8 = true;
  o.calibration = edgefold::testing::RandomVector(8 * 36, 3);
  o.calibration_shape = {8, 4, 3, 3};
  const CompileResult q = CompileModel(b.model(), o);
  ASSERT_TRUE(q.ok) << q.error;
  ASSERT_EQ(q.report.quant.float_ops.size(), 1u);
  EXPECT_NE(q.report.quant.float_ops[0].find(
                "channel_softmax (Softmax): an int8 Softmax runs over the last axis only"),
            std::string::npos)
      << q.report.quant.float_ops[0];
}

// A Softmax of a float tensor (here the graph input) stays float: a Quantize in front of it
// would only add error.
TEST(SoftmaxInt8, FloatInputStaysFloat) {
  edgefold::testing::OnnxBuilder b(13, 8);
  b.GraphName("float_logits").Input("x", {2, 10}).Output("y", {2, 10});
  b.Node("Softmax", {"x"}, {"y"}, "input_softmax");
  CompileOptions o;
  o.quantize_int8 = true;
  o.calibration = edgefold::testing::RandomVector(8 * 10, 4);
  o.calibration_shape = {8, 10};
  const CompileResult q = CompileModel(b.model(), o);
  ASSERT_TRUE(q.ok) << q.error;
  ASSERT_EQ(q.report.quant.float_ops.size(), 1u);
  EXPECT_NE(q.report.quant.float_ops[0].find("input_softmax (Softmax): its input is float"),
            std::string::npos)
      << q.report.quant.float_ops[0];
  EXPECT_EQ(edgefold::testing::CountOps(q.model, fb::OpType::SoftmaxInt8), 0u);
}

// The model's bytes with `patch` applied at the address `at` finds in the parsed model.
struct Corruption {
  const char* what;
  std::function<const void*(const fb::Model*, const fb::Operator*)> at;
  std::vector<uint8_t> patch;
  Status status;
  const char* message;  // a part of the log
};

template <class T>
std::vector<uint8_t> Raw(T v) {
  std::vector<uint8_t> b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

const fb::Tensor* TensorOf(const fb::Model* m, const fb::Operator* op, bool output, uint32_t i) {
  return m->tensors()->Get(static_cast<uint32_t>((output ? op->outputs() : op->inputs())->Get(i)));
}
const int32_t* TableData(const fb::Model* m, const fb::Operator* op) {
  const fb::Tensor* t = TensorOf(m, op, false, 1);
  return reinterpret_cast<const int32_t*>(m->weights()->data() + t->weight_offset());
}

TEST(SoftmaxInt8, CorruptedFieldsAreRefusedByName) {
  const Compiled& c = Digits();
  ASSERT_TRUE(c.q.ok) << c.q.error;
  const std::vector<Corruption> cases = {
      {"table of 128 values",
       [](const fb::Model* m, const fb::Operator* op) {
         return TensorOf(m, op, false, 1)->shape()->data();
       },
       Raw(int32_t{128}), Status::kInvalidModel, "softmax"},
      {"table as int8",
       [](const fb::Model* m, const fb::Operator* op) -> const void* {
         const auto* table = reinterpret_cast<const flatbuffers::Table*>(
             TensorOf(m, op, false, 1));  // a Tensor is its table
         return table->GetAddressOf(fb::Tensor::VT_DTYPE);
       },
       Raw(static_cast<uint8_t>(fb::DType::Int8)), Status::kInvalidModel, "softmax"},
      {"T[0] not 2^20", [](const fb::Model* m, const fb::Operator* op) { return TableData(m, op); },
       Raw(int32_t{12345}), Status::kInvalidModel, "must start at 2^20"},
      {"T[0] overflowing",
       [](const fb::Model* m, const fb::Operator* op) { return TableData(m, op); },
       Raw(int32_t{2147483647}), Status::kInvalidModel, "must start at 2^20"},
      {"T increasing",
       [](const fb::Model* m, const fb::Operator* op) { return TableData(m, op) + 7; },
       Raw(int32_t{1} << 20), Status::kInvalidModel, "entry 7"},
      {"T negative",
       [](const fb::Model* m, const fb::Operator* op) { return TableData(m, op) + 255; },
       Raw(int32_t{-5}), Status::kInvalidModel, "entry 255"},
      {"output scale 1/255",
       [](const fb::Model* m, const fb::Operator* op) {
         return TensorOf(m, op, true, 0)->quant()->scales()->data();
       },
       Raw(1.0f / 255), Status::kInvalidModel, "need 1/256 and -128"},
      {"output zero point 0",
       [](const fb::Model* m, const fb::Operator* op) {
         return TensorOf(m, op, true, 0)->quant()->zero_points()->data();
       },
       Raw(int32_t{0}), Status::kInvalidModel, "need 1/256 and -128"},
      {"output scale negative",
       [](const fb::Model* m, const fb::Operator* op) {
         return TensorOf(m, op, true, 0)->quant()->scales()->data();
       },
       Raw(-1.0f / 256), Status::kInvalidModel, "scale is zero, negative or not finite"},
  };
  const fb::Model* m = fb::GetModel(c.q.model.data());
  const auto ops = edgefold::testing::OpsOfType(m, fb::OpType::SoftmaxInt8);
  ASSERT_EQ(ops.size(), 1u);
  const std::vector<float> in = Image(c.x, 0);
  for (const Corruption& k : cases) {
    const auto* at = static_cast<const uint8_t*>(k.at(m, ops[0]));
    ASSERT_NE(at, nullptr) << k.what;
    std::vector<uint8_t> bytes = c.q.model;
    std::memcpy(bytes.data() + (at - c.q.model.data()), k.patch.data(), k.patch.size());
    const auto r = RunModel(bytes, {in});
    std::printf("%-22s -> %s", k.what, r.log.c_str());
    EXPECT_EQ(r.status, k.status) << k.what << ": " << r.log;
    EXPECT_NE(r.log.find(k.message), std::string::npos) << k.what << ": " << r.log;
  }
}

}  // namespace
}  // namespace edgefold::compiler
