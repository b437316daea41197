// QDQ models compiled with no flags (hand-built ones and PyTorch's PTQ export): agreement with
// ONNX Runtime's outputs (golden data of tests/golden/qdq/make_qdq_models.py and ort_reference.js), the model's own weight scales in the
// int8 layers, BN folding, float fallbacks named, the same bits on every ISA, and each
// malformed quantization refused naming its node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "edgefold/model_generated.h"
#include "edgefold_compiler/compiler.h"
#include "onnx_load.h"
#include "testing/npy_read.h"
#include "testing/onnx_builder.h"
#include "testing/run_model.h"

namespace edgefold::compiler {
namespace {

using edgefold::testing::AvailableIsas;
using edgefold::testing::RunModel;
using kernels::testing::NpyArray;

const std::string kDir = EDGEFOLD_QDQ_DATA_DIR;

std::string ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

NpyArray Npy(const std::string& path) {
  NpyArray a;
  std::string error;
  EXPECT_TRUE(kernels::testing::ReadNpyF32(path, &a, &error)) << error;
  return a;
}

// The output quantization step the generator recorded in MANIFEST.json for `model`.
double OutputStep(const std::string& model) {
  const std::string m = ReadText(kDir + "/MANIFEST.json");
  const size_t at = m.find("\"output_scale\":", m.find("\"" + model + "\""));
  return at == std::string::npos ? 0.0 : std::stod(m.substr(at + 15));
}

size_t ArgMax(const float* x, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

onnx::ModelProto Load(const std::string& model) {
  return ParseModelBytes(ReadText(kDir + "/" + model + ".onnx"), model);
}

// Runs every golden input and compares with ONNX Runtime: within one output step on >= 99 % of
// the values, the same arg max on >= 99 % of the inputs.
void ExpectAgreesWithOrt(const std::string& model, const CompileResult& c) {
  const NpyArray x = Npy(kDir + "/" + model + "_input.npy"),
                 want = Npy(kDir + "/" + model + "_ort.npy");
  const double step = OutputStep(model);
  ASSERT_GT(step, 0.0);
  const size_t runs = x.shape[0], per = x.data.size() / runs, classes = want.shape[1];
  ASSERT_EQ(want.shape[0], runs);
  size_t within = 0, agree = 0;
  for (size_t i = 0; i < runs; ++i) {
    const std::vector<float> in(x.data.begin() + static_cast<long>(i * per),
                                x.data.begin() + static_cast<long>((i + 1) * per));
    const auto r = RunModel(c.model, {in});
    ASSERT_EQ(r.status, Status::kOk) << r.log;
    ASSERT_EQ(r.outputs[0].size(), classes);
    const float* ort = want.data.data() + i * classes;
    for (size_t k = 0; k < classes; ++k)
      within += std::fabs(double(r.outputs[0][k]) - ort[k]) <= step * 1.001;
    agree += ArgMax(r.outputs[0].data(), classes) == ArgMax(ort, classes);
  }
  const double within_fraction = double(within) / double(runs * classes),
               top1 = double(agree) / double(runs);
  EXPECT_GE(within_fraction, 0.99) << model;
  EXPECT_GE(top1, 0.99) << model;
  std::printf(
      "%s: %.2f %% of outputs within one step (%.6g) of ONNX Runtime, top-1 agreement %.2f %%\n",
      model.c_str(), 100 * within_fraction, step, 100 * top1);
}

const QuantLayerReport* Layer(const CompileReport& r, const std::string& name) {
  for (const QuantLayerReport& l : r.quant.layers)
    if (l.name == name) return &l;
  return nullptr;
}

std::vector<float> Initializer(const onnx::ModelProto& m, const std::string& name) {
  for (const onnx::TensorProto& t : m.graph().initializer())
    if (t.name() == name) {
      std::vector<float> v(t.raw_data().size() / sizeof(float));
      std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
      return v;
    }
  return {};
}

TEST(QdqImport, PerChannelInt8ModelAgreesWithOnnxRuntimeOnInt8Kernels) {
  const CompileResult c = CompileModel(Load("qdq_s8_per_channel"), CompileOptions());
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_TRUE(c.report.quant.ran);
  // The global average's output has a finer scale in the model than its input: float, named.
  ASSERT_EQ(c.report.quant.float_ops.size(), 1u);
  EXPECT_EQ(c.report.quant.float_ops[0],
            "gap (GlobalPool): the model quantizes its output unlike its input, and an "
            "int8 average keeps its input's scale");
  EXPECT_EQ(c.report.batchnorm_folded_backward, 1);  // the float BN between conv2 and its Relu
  for (const char* name :
       {"conv1", "conv2", "depthwise", "relu3", "fc", "residual_add", "pool1", "flatten"})
    EXPECT_NE(Layer(c.report, name), nullptr) << name << " is not an int8 layer";
  ExpectAgreesWithOrt("qdq_s8_per_channel", c);
}

const onnx::TensorProto* InitializerProto(const onnx::ModelProto& m, const std::string& name) {
  for (const onnx::TensorProto& t : m.graph().initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

// The int8 weights tensor of the op named `name` in the .efb.
const fb::Tensor* WeightsOf(const fb::Model* m, const std::string& name) {
  for (const fb::Operator* op : *m->operators())
    if (op->name()->str() == name)
      return m->tensors()->Get(static_cast<uint32_t>(op->inputs()->Get(1)));
  return nullptr;
}

// The int8 values and per-channel scales of the .efb are the model's own, bit for bit; where a
// float BatchNorm folded into the weights (conv2), the values are the model's up to the sign of
// the BN scale and the scales are the model's times |γ/σ|.
TEST(QdqImport, WeightsKeepTheModelsInt8ValuesAndScales) {
  const onnx::ModelProto onnx_model = Load("qdq_s8_per_channel");
  const CompileResult c = CompileModel(onnx_model, CompileOptions());
  ASSERT_TRUE(c.ok) << c.error;
  const fb::Model* m = testing::ModelOf(c.model);
  for (const std::string node : {"conv1", "fc", "conv2"}) {
    const onnx::TensorProto* q = InitializerProto(onnx_model, node + ".w_int8");
    const std::vector<float> scales = Initializer(onnx_model, node + ".w_scale");
    const fb::Tensor* w = WeightsOf(m, node);
    ASSERT_TRUE(q && w) << node;
    ASSERT_EQ(w->quant()->scales()->size(), scales.size()) << node;
    const size_t bytes = q->raw_data().size(), per = bytes / scales.size();
    const auto* got = reinterpret_cast<const int8_t*>(m->weights()->data() + w->weight_offset());
    const auto* want = reinterpret_cast<const int8_t*>(q->raw_data().data());
    for (size_t ch = 0; ch < scales.size(); ++ch) {
      const float s = w->quant()->scales()->Get(static_cast<uint32_t>(ch));
      if (node != "conv2")
        EXPECT_EQ(s, scales[ch]) << node << " channel " << ch;
      else
        EXPECT_NE(s, scales[ch]) << node << " channel " << ch
                                 << ": the BN scale is not in the weights";
      for (size_t k = 0; k < per; ++k) {
        const int a = got[ch * per + k], b = want[ch * per + k];
        if (node != "conv2")
          ASSERT_EQ(a, b) << node << " weight " << ch * per + k;
        else
          ASSERT_EQ(std::abs(a), std::abs(b)) << node << " weight " << ch * per + k;
      }
    }
  }
  // The activations' scales are the model's: conv1's output is r1's QuantizeLinear's.
  EXPECT_EQ(Layer(c.report, "conv1")->out_scale, Initializer(onnx_model, "r1_q_scale").at(0));
}

TEST(QdqImport, Opset10Uint8ModelAgreesWithOnnxRuntimeAndNamesItsFloatOp) {
  const CompileResult c = CompileModel(Load("qdq_u8_opset10"), CompileOptions());
  ASSERT_TRUE(c.ok) << c.error;
  ASSERT_EQ(c.report.quant.float_ops.size(), 2u);
  EXPECT_EQ(c.report.quant.float_ops[0],
            "channel_gain (Binary): a Mul by a constant has no int8 kernel");
  EXPECT_EQ(c.report.quant.float_ops[1],
            "pool (Pool): the model quantizes its output unlike its input, and an "
            "int8 average keeps its input's scale");
  for (const char* name : {"conv1", "conv2", "sigmoid", "flatten", "fc"})
    EXPECT_NE(Layer(c.report, name), nullptr) << name << " is not an int8 layer";
  // uint8 zero point z is int8 z − 128.
  ExpectAgreesWithOrt("qdq_u8_opset10", c);
}

// PyTorch's eager PTQ exported by torch.onnx.export: Cast between QuantizeLinear and
// DequantizeLinear, Constant nodes for every scale and zero point, conv-BN-ReLU fused by PyTorch.
TEST(QdqImport, PyTorchPtqExportAgreesWithOnnxRuntimeOnInt8Kernels) {
  const CompileResult c = CompileModel(Load("torch_ptq_cnn"), CompileOptions());
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_TRUE(c.report.quant.float_ops.empty()) << c.report.quant.float_ops[0];
  for (const char* name :
       {"/conv1/Conv", "/pool/MaxPool", "/conv2/Conv", "/gap/GlobalAveragePool", "/fc/Gemm"})
    EXPECT_NE(Layer(c.report, name), nullptr) << name << " is not an int8 layer";
  ExpectAgreesWithOrt("torch_ptq_cnn", c);
}

// PyTorch's QAT export (fake quantization, not converted): float weights behind QuantizeLinear,
// the fused conv-BN-ReLU as Conv → Div → Add → BatchNormalization → Relu; the Div and Add fold
// into the conv and the BN folds as usual, so both convs are int8. The model quantizes nothing
// between the global average and the classifier: those stay float, named.
TEST(QdqImport, PyTorchQatExportAgreesWithOnnxRuntimeOnInt8Kernels) {
  const CompileResult c = CompileModel(Load("torch_qat_cnn"), CompileOptions());
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(c.report.batchnorm_folded_backward, 1);
  for (const char* name : {"/conv1/Conv", "/conv2/Conv"})
    EXPECT_NE(Layer(c.report, name), nullptr) << name << " is not an int8 layer";
  const std::vector<std::string> want = {
      "/gap/GlobalAveragePool (GlobalPool): its output is not quantized in the model, and an int8 "
      "average rounds to "
      "its input's scale",
      "/Flatten (Reshape): its input is float (it keeps its producer's precision)",
      "/fc/Gemm (Gemm): its input '/Flatten_output_0' is not quantized in the model"};
  EXPECT_EQ(c.report.quant.float_ops, want);
  ExpectAgreesWithOrt("torch_qat_cnn", c);
}

// MatMul weights [K, N] quantized along N (axis 1) keep the model's per-column scales.
TEST(QdqImport, MatMulPerColumnWeightsAgreeWithOnnxRuntime) {
  const onnx::ModelProto m = Load("qdq_matmul");
  const CompileResult c = CompileModel(m, CompileOptions());
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_TRUE(c.report.quant.float_ops.empty()) << c.report.quant.float_ops[0];
  const std::vector<float> s = Initializer(m, "mm1.w_scale");
  const QuantLayerReport* mm1 = Layer(c.report, "mm1");
  ASSERT_NE(mm1, nullptr);
  EXPECT_EQ(mm1->w_scale_min, *std::min_element(s.begin(), s.end()));
  EXPECT_EQ(mm1->w_scale_max, *std::max_element(s.begin(), s.end()));
  ExpectAgreesWithOrt("qdq_matmul", c);
}

// PyTorch's weights reach -128 (its symmetric range is [-128, 127]): every ISA level gives the
// scalar reference's bits on them too.
TEST(QdqImport, SameBitsOnEveryIsa) {
  for (const std::string model : {"qdq_s8_per_channel", "torch_ptq_cnn"}) {
    const CompileResult c = CompileModel(Load(model), CompileOptions());
    ASSERT_TRUE(c.ok) << c.error;
    const NpyArray x = Npy(kDir + "/" + model + "_input.npy");
    const size_t per = x.data.size() / x.shape[0];
    for (size_t i = 0; i < 8; ++i) {
      const std::vector<float> in(x.data.begin() + static_cast<long>(i * per),
                                  x.data.begin() + static_cast<long>((i + 1) * per));
      const auto want = RunModel(c.model, {in}, Isa::kScalar);
      for (Isa isa : AvailableIsas())
        EXPECT_EQ(RunModel(c.model, {in}, isa).outputs, want.outputs)
            << model << " " << IsaName(isa);
    }
  }
}

TEST(QdqImport, IoInt8AndQuantizeFlag) {
  CompileOptions io;
  io.io_int8 = true;
  const CompileResult c = CompileModel(Load("qdq_s8_per_channel"), io);
  ASSERT_TRUE(c.ok) << c.error;
  ASSERT_EQ(c.report.quant.io.size(), 2u);
  EXPECT_TRUE(c.report.quant.io[0].int8);
  CompileOptions quantize;
  quantize.quantize_int8 = true;
  const CompileResult q = CompileModel(Load("qdq_s8_per_channel"), quantize);
  ASSERT_FALSE(q.ok);
  EXPECT_NE(q.error.find("already quantized"), std::string::npos) << q.error;
}

// Q and DQ did not change from opset 13 to 17: the same model stamped 17 compiles to the same bytes.
TEST(QdqImport, Opset17GivesTheSameModel) {
  onnx::ModelProto m = Load("qdq_s8_per_channel");
  const CompileResult at13 = CompileModel(m, CompileOptions());
  m.mutable_opset_import(0)->set_version(17);
  const CompileResult at17 = CompileModel(m, CompileOptions());
  ASSERT_TRUE(at13.ok && at17.ok) << at13.error << at17.error;
  EXPECT_EQ(at13.model, at17.model);
}

TEST(QdqImport, Int8GraphInputIsAnErrorNamingTheNode) {
  onnx::ModelProto m = Load("qdq_s8_per_channel");  // x int8, read by x_DequantizeLinear directly
  auto* nodes = m.mutable_graph()->mutable_node();
  for (int i = 0; i < nodes->size(); ++i)
    if (nodes->Get(i).name() == "x_QuantizeLinear") nodes->DeleteSubrange(i, 1);
  for (onnx::NodeProto& node : *nodes)
    if (node.name() == "x_DequantizeLinear") node.set_input(0, "x");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT8);
  const CompileResult c = CompileModel(m, CompileOptions());
  ASSERT_FALSE(c.ok);
  EXPECT_NE(c.error.find("node 'x_DequantizeLinear'"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("int8 graph inputs are not supported"), std::string::npos) << c.error;
}

// uint8 weights with zero point 60: q − zp reaches 183, beyond int8; such a channel is requantized
// (scale max|w| / 127, larger than the model's) instead of clamped.
TEST(QdqImport, AsymmetricWeightsLeavingInt8AreRequantized) {
  onnx::ModelProto m = Load("qdq_u8_opset10");
  float scale = 0;
  for (onnx::NodeProto& n : *m.mutable_graph()->mutable_node()) {
    if (n.name() == "conv2.w_zp_const") {
      const int32_t zp = 60;
      n.mutable_attribute(0)->mutable_t()->set_raw_data(
          std::string(reinterpret_cast<const char*>(&zp), sizeof zp));
    }
    if (n.name() == "conv2.w_scale_const")
      std::memcpy(&scale, n.attribute(0).t().raw_data().data(), sizeof scale);
  }
  ASSERT_GT(scale, 0.0f);
  const CompileResult c = CompileModel(m, CompileOptions());
  ASSERT_TRUE(c.ok) << c.error;
  const QuantLayerReport* conv2 = Layer(c.report, "conv2");
  ASSERT_NE(conv2, nullptr);
  EXPECT_EQ(conv2->w_scale_min, scale);         // channels that fit keep the model's scale
  EXPECT_GT(conv2->w_scale_max, scale * 1.4f);  // q up to 243: max |q − 60| / 127 = 1.44
}

// qdq_as_float: the float model behind the Q/DQ pairs (edgefold diff's reference), no int8.
TEST(QdqImport, QdqAsFloatCompilesTheFloatModel) {
  CompileOptions o;
  o.qdq_as_float = true;
  const CompileResult c = CompileModel(Load("qdq_s8_per_channel"), o);
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_FALSE(c.report.quant.ran);
  EXPECT_EQ(c.report.batchnorm_folded_backward, 1);
  EXPECT_TRUE(testing::OpsOfType(testing::ModelOf(c.model), fb::OpType::ConvInt8).empty());
}

onnx::TensorProto* MutableInitializer(onnx::ModelProto* m, const std::string& name) {
  for (onnx::TensorProto& t : *m->mutable_graph()->mutable_initializer())
    if (t.name() == name) return &t;
  ADD_FAILURE() << "no initializer " << name;
  return nullptr;
}

void SetFloats(onnx::TensorProto* t, const std::vector<float>& v) {
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
  t->clear_dims();
  if (v.size() > 1 || t->dims_size() > 0) t->add_dims(static_cast<int64_t>(v.size()));
}

std::string CompileError(const onnx::ModelProto& m) {
  const CompileResult c = CompileModel(m, CompileOptions());
  EXPECT_FALSE(c.ok);
  return c.error;
}

void ExpectErrorNames(const onnx::ModelProto& m, const std::string& node, const std::string& what) {
  const std::string e = CompileError(m);
  EXPECT_NE(e.find("node '" + node + "'"), std::string::npos) << e;
  EXPECT_NE(e.find(what), std::string::npos) << e;
}

TEST(QdqImport, MalformedScalesAreErrorsNamingTheNode) {
  const onnx::ModelProto good = Load("qdq_s8_per_channel");
  const std::vector<float> s = Initializer(good, "conv1.w_scale");
  const struct {
    size_t index;
    float value;
    const char* what;
  } cases[] = {
      {3, 0.0f, "scale[3] = 0 is not positive"},
      {5, -0.25f, "scale[5] = -0.25 is not positive"},
      {2, std::numeric_limits<float>::quiet_NaN(), "scale[2] = nan is not positive and finite"},
      {0, std::numeric_limits<float>::infinity(), "scale[0] = inf is not positive and finite"}};
  for (const auto& bad : cases) {
    onnx::ModelProto m = good;
    std::vector<float> v = s;
    v[bad.index] = bad.value;
    SetFloats(MutableInitializer(&m, "conv1.w_scale"), v);
    ExpectErrorNames(m, "conv1.w_DQ", bad.what);
  }
  onnx::ModelProto act = good;  // an activation's scale
  SetFloats(MutableInitializer(&act, "r2_q_scale"), {0.0f});
  const std::string e = CompileError(act);
  EXPECT_NE(e.find("scale[0] = 0 is not positive"), std::string::npos) << e;
  EXPECT_NE(e.find("r2_"), std::string::npos) << e;
}

TEST(QdqImport, ZeroPointOutOfRangeIsAnErrorNamingTheNode) {
  onnx::ModelProto m = Load("qdq_s8_per_channel");
  onnx::TensorProto* zp = MutableInitializer(&m, "fc.w_zp");
  const size_t n = zp->raw_data().size();
  zp->clear_raw_data();
  for (size_t i = 0; i < n; ++i) zp->add_int32_data(i == 4 ? 200 : 0);
  ExpectErrorNames(m, "fc.w_DQ", "zero point[4] = 200 is outside int8 [-128, 127]");
}

TEST(QdqImport, MismatchedAxisOrLengthsAreErrorsNamingTheNode) {
  const onnx::ModelProto good = Load("qdq_s8_per_channel");
  std::vector<float> s = Initializer(good, "conv1.w_scale");
  s.pop_back();
  {  // 7 scales, 8 zero points
    onnx::ModelProto m = good;
    SetFloats(MutableInitializer(&m, "conv1.w_scale"), s);
    ExpectErrorNames(m, "conv1.w_DQ", "has 7 scales but 8 zero points");
  }
  {  // 7 scales and zero points for 8 output channels
    onnx::ModelProto m = good;
    SetFloats(MutableInitializer(&m, "conv1.w_scale"), s);
    onnx::TensorProto* zp = MutableInitializer(&m, "conv1.w_zp");
    zp->set_raw_data(std::string(7, '\0'));
    zp->set_dims(0, 7);
    ExpectErrorNames(m, "conv1.w_DQ", "has 7 scales for axis 0 of length 8");
  }
  {  // the scales along axis 1 (3 input channels) instead of 0
    onnx::ModelProto m = good;
    for (onnx::NodeProto& node : *m.mutable_graph()->mutable_node())
      if (node.name() == "conv1.w_DQ") node.mutable_attribute(0)->set_i(1);
    ExpectErrorNames(m, "conv1.w_DQ", "has 8 scales for axis 1 of length 3");
  }
  {  // a DequantizeLinear with another scale than its QuantizeLinear
    onnx::ModelProto m = good;
    onnx::TensorProto* other = m.mutable_graph()->add_initializer();
    *other = *MutableInitializer(&m, "r2_q_scale");
    other->set_name("other_scale");
    SetFloats(other, {0.5f});
    for (onnx::NodeProto& node : *m.mutable_graph()->mutable_node())
      if (node.name() == "r2_DequantizeLinear") node.set_input(1, "other_scale");
    ExpectErrorNames(m, "r2_DequantizeLinear",
                     "differ from those of its QuantizeLinear 'r2_QuantizeLinear'");
  }
}

}  // namespace
}  // namespace edgefold::compiler
