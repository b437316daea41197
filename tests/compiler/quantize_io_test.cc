// compile --quantize int8 --io int8: int8 graph inputs and outputs carrying the scale and zero
// point of the Quantize/Dequantize ops they replace, a smaller arena, the same int8 bits as the
// float-I/O model inside, and the runtime's refusals of the wrong setter (C++ and C API).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "edgefold/edgefold.h"
#include "edgefold/model_generated.h"
#include "edgefold_compiler/compiler.h"
#include "testing/npy_read.h"
#include "testing/onnx_builder.h"
#include "testing/run_model.h"
#include "int8_test_data.h"
#include "testing/runtime_session.h"

namespace edgefold::compiler {
namespace {

using edgefold::testing::CreateInterpreter;

const std::string kDigits = std::string(EDGEFOLD_EXAMPLES_DIR) + "/digits/digits_cnn.onnx";

using int8_testing::DigitsImages;

CompileOptions Int8Options(const std::vector<float>& calibration, std::vector<int64_t> shape,
                           bool io_int8) {
  CompileOptions o;
  o.quantize_int8 = true;
  o.io_int8 = io_int8;
  o.calibration = calibration;
  o.calibration_shape = std::move(shape);
  return o;
}

CompileOptions DigitsOptions(bool io_int8) {
  const kernels::testing::NpyArray x = DigitsImages();
  std::vector<int64_t> shape;
  for (size_t d : x.shape) shape.push_back(static_cast<int64_t>(d));
  return Int8Options(x.data, shape, io_int8);
}

const fb::Tensor* Tensor(const std::vector<uint8_t>& model, int index) {
  return fb::GetModel(model.data())->tensors()->Get(static_cast<uint32_t>(index));
}

// The op of `type` in `model` (the first one), or nullptr.
const fb::Operator* FindOp(const std::vector<uint8_t>& model, fb::OpType type) {
  for (const fb::Operator* op : *fb::GetModel(model.data())->operators())
    if (op->type() == type) return op;
  return nullptr;
}

TEST(QuantizeIoInt8, InputsAndOutputsAreInt8WithTheBoundaryOpsQuantization) {
  const CompileResult f = CompileFile(kDigits, DigitsOptions(false));
  const CompileResult q = CompileFile(kDigits, DigitsOptions(true));
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  const fb::Operator* quantize = FindOp(f.model, fb::OpType::Quantize);
  const fb::Operator* dequantize = FindOp(f.model, fb::OpType::Dequantize);
  ASSERT_NE(quantize, nullptr);
  ASSERT_NE(dequantize, nullptr);
  EXPECT_EQ(FindOp(q.model, fb::OpType::Quantize), nullptr);
  EXPECT_EQ(FindOp(q.model, fb::OpType::Dequantize), nullptr);
  EXPECT_EQ(q.report.num_ops + 2, f.report.num_ops);
  EXPECT_EQ(q.report.quant.boundaries + 2, f.report.quant.boundaries);
  const fb::Model* mq = fb::GetModel(q.model.data());
  const fb::Tensor* in = Tensor(q.model, mq->inputs()->Get(0));
  const fb::Tensor* out = Tensor(q.model, mq->outputs()->Get(0));
  const fb::Tensor* want_in = Tensor(f.model, quantize->outputs()->Get(0));
  const fb::Tensor* want_out = Tensor(f.model, dequantize->inputs()->Get(0));
  for (const auto& [got, want] : {std::make_pair(in, want_in), std::make_pair(out, want_out)}) {
    EXPECT_EQ(got->dtype(), fb::DType::Int8);
    ASSERT_NE(got->quant(), nullptr);
    EXPECT_EQ(got->quant()->scales()->Get(0), want->quant()->scales()->Get(0));
    EXPECT_EQ(got->quant()->zero_points()->Get(0), want->quant()->zero_points()->Get(0));
    EXPECT_EQ(got->bytes(), want->bytes());  // planned at 1 byte per element
  }
  EXPECT_STREQ(in->name()->c_str(), "image");  // the ONNX names, not the copies'
  EXPECT_STREQ(out->name()->c_str(), "logits");
  // The report: I/O int8 with the same scale and zero point.
  EXPECT_TRUE(q.report.quant.io_int8);
  ASSERT_EQ(q.report.quant.io.size(), 2u);
  EXPECT_TRUE(q.report.quant.io[0].is_input && q.report.quant.io[0].int8);
  EXPECT_EQ(q.report.quant.io[0].scale, want_in->quant()->scales()->Get(0));
  EXPECT_EQ(q.report.quant.io[1].zero_point, want_out->quant()->zero_points()->Get(0));
  ASSERT_EQ(f.report.quant.io.size(), 2u);
  EXPECT_FALSE(f.report.quant.io[0].int8 || f.report.quant.io[1].int8);
  EXPECT_LE(q.report.arena_bytes, f.report.arena_bytes);
}

// x[1, 16, 8, 8] → 1×1 Conv → y[1, 4, 8, 8]: with float I/O the float input (4 KiB) and its int8
// copy (1 KiB) are live together at the Quantize, and set the peak; with int8 I/O only the
// 1 KiB input and the conv's output are.
TEST(QuantizeIoInt8, ArenaShrinksWhenTheInputSetsThePeak) {
  edgefold::testing::OnnxBuilder b(13, 8);
  b.GraphName("pointwise").Input("x", {1, 16, 8, 8}).Output("y", {1, 4, 8, 8});
  b.Init("W", {4, 16, 1, 1}, edgefold::testing::RandomVector(64, 7))
      .Init("B", {4}, edgefold::testing::RandomVector(4, 8));
  edgefold::testing::SetInts(b.Node("Conv", {"x", "W", "B"}, {"y"}, "conv"), "kernel_shape",
                             {1, 1});
  const std::string path = ::testing::TempDir() + "/pointwise_io.onnx";
  ASSERT_TRUE(edgefold::testing::SaveModel(b.model(), path));
  const std::vector<float> calib = edgefold::testing::RandomVector(4 * 1024, 9);
  const CompileResult f = CompileFile(path, Int8Options(calib, {4, 16, 8, 8}, false));
  const CompileResult q = CompileFile(path, Int8Options(calib, {4, 16, 8, 8}, true));
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  std::printf("pointwise: arena %llu B with int8 I/O, %llu B with float I/O\n",
              (unsigned long long)q.report.arena_bytes, (unsigned long long)f.report.arena_bytes);
  const fb::Model* mq = fb::GetModel(q.model.data());
  EXPECT_EQ(Tensor(q.model, mq->inputs()->Get(0))->bytes(), 1024u);
  EXPECT_EQ(Tensor(q.model, mq->outputs()->Get(0))->bytes(), 256u);
  EXPECT_EQ(f.report.arena_bytes, 4096u + 1024u);  // float x + its int8 copy
  EXPECT_EQ(q.report.arena_bytes, 1024u + 256u);   // int8 x + int8 y
}

// x → Softmax → 1×1 Conv + Relu → y, and y → Softmax → z, both Softmax over the channel axis
// (axis 1 of 4): x is read by a float op and z written by one (the int8 Softmax runs over the
// last axis only), so both stay float (named in the report); y becomes int8 while the
// Dequantize that feeds the second Softmax stays. Outputs equal the float-I/O model's after dequantization.
TEST(QuantizeIoInt8, InputsAndOutputsNextToFloatOpsStayFloat) {
  edgefold::testing::OnnxBuilder b(13, 8);
  b.GraphName("mixed").Input("x", {1, 4, 4, 4}).Output("y", {1, 4, 4, 4}).Output("z", {1, 4, 4, 4});
  b.Init("W", {4, 4, 1, 1}, edgefold::testing::RandomVector(16, 3))
      .Init("B", {4}, edgefold::testing::RandomVector(4, 4));
  edgefold::testing::SetInt(b.Node("Softmax", {"x"}, {"s"}, "softmax_in"), "axis", 1);
  edgefold::testing::SetInts(b.Node("Conv", {"s", "W", "B"}, {"c"}, "conv"), "kernel_shape",
                             {1, 1});
  b.Node("Relu", {"c"}, {"y"}, "relu");
  edgefold::testing::SetInt(b.Node("Softmax", {"y"}, {"z"}, "softmax_out"), "axis", 1);
  const std::string path = ::testing::TempDir() + "/mixed_io.onnx";
  ASSERT_TRUE(edgefold::testing::SaveModel(b.model(), path));
  const std::vector<float> calib = edgefold::testing::RandomVector(8 * 64, 5, -3.0f, 3.0f);
  const CompileResult f = CompileFile(path, Int8Options(calib, {8, 4, 4, 4}, false));
  const CompileResult q = CompileFile(path, Int8Options(calib, {8, 4, 4, 4}, true));
  ASSERT_TRUE(f.ok) << f.error;
  ASSERT_TRUE(q.ok) << q.error;
  const std::vector<QuantIoReport>& io = q.report.quant.io;
  ASSERT_EQ(io.size(), 3u);
  for (const QuantIoReport& r : io)
    std::printf("%s '%s': %s scale %.9g zero point %d %s\n", r.is_input ? "input" : "output",
                r.name.c_str(), r.int8 ? "int8" : "float32", double(r.scale), r.zero_point,
                r.why_float.c_str());
  EXPECT_FALSE(io[0].int8);
  EXPECT_NE(io[0].why_float.find("read by the float op 'softmax_in'"), std::string::npos)
      << io[0].why_float;
  EXPECT_TRUE(io[1].int8) << io[1].why_float;
  EXPECT_EQ(io[1].name, "y");
  EXPECT_FALSE(io[2].int8);
  EXPECT_NE(io[2].why_float.find("written by the float op"), std::string::npos) << io[2].why_float;
  const std::vector<float> x = edgefold::testing::RandomVector(64, 6, -3.0f, 3.0f);
  const auto rf = edgefold::testing::RunModel(f.model, {x}),
             rq = edgefold::testing::RunModel(q.model, {x});
  ASSERT_EQ(rq.status, Status::kOk) << rq.log;
  EXPECT_EQ(rq.outputs, rf.outputs);  // RunModel dequantizes y
}

TEST(QuantizeIoInt8, NeedsQuantizeInt8) {
  CompileOptions o;
  o.io_int8 = true;
  const CompileResult r = CompileFile(kDigits, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("--io int8 needs --quantize int8"), std::string::npos) << r.error;
}

// quantize(x) → the int8-I/O model → dequantize gives the float-I/O model's output bit for bit:
// both run the same int8 graph, and its Quantize/Dequantize are the rules QuantizeInput and
// (q − zp)·s apply. The int8 bytes set by SetInputS8 (the firmware path) give the same output.
TEST(QuantizeIoInt8, SameBitsAsTheFloatIoModelInside) {
  const kernels::testing::NpyArray x = DigitsImages();
  const CompileResult f = CompileFile(kDigits, DigitsOptions(false));
  const CompileResult q = CompileFile(kDigits, DigitsOptions(true));
  ASSERT_TRUE(f.ok && q.ok) << f.error << q.error;
  const auto fs = CreateInterpreter(f.model);
  const auto qs = CreateInterpreter(q.model);
  const auto raw = CreateInterpreter(q.model);
  ASSERT_EQ(qs->status, Status::kOk) << qs->log;
  Interpreter& fi = *fs->interp;
  Interpreter& qi = *qs->interp;
  Interpreter& ri = *raw->interp;
  const TensorView in = qi.input(0), out = qi.output(0);
  ASSERT_EQ(in.dtype, DType::kInt8);
  ASSERT_EQ(out.dtype, DType::kInt8);
  EXPECT_EQ(in.data, nullptr);
  ASSERT_NE(in.data_s8, nullptr);
  EXPECT_GT(out.scale, 0.0f);
  const size_t pixels = in.elems;
  for (size_t i = 0; i < 32; ++i) {
    const float* xi = x.data.data() + i * pixels;
    ASSERT_EQ(fi.SetInput(0, xi, pixels), Status::kOk);
    ASSERT_EQ(fi.Invoke(), Status::kOk);
    ASSERT_EQ(qi.QuantizeInput(0, xi, pixels), Status::kOk);
    const std::vector<int8_t> bytes(in.data_s8,
                                    in.data_s8 + pixels);  // Invoke may reuse the input's bytes
    ASSERT_EQ(qi.Invoke(), Status::kOk);
    ASSERT_EQ(ri.SetInputS8(0, bytes.data(), bytes.size()), Status::kOk);
    ASSERT_EQ(ri.Invoke(), Status::kOk);
    EXPECT_EQ(std::memcmp(ri.output(0).data_s8, out.data_s8, out.elems), 0) << "image " << i;
    std::vector<float> dequantized(out.elems);
    ASSERT_EQ(qi.DequantizeOutput(0, dequantized.data(), dequantized.size()), Status::kOk);
    for (size_t k = 0; k < out.elems; ++k) {
      const float y = static_cast<float>(out.data_s8[k] - out.zero_point) * out.scale;
      EXPECT_EQ(y, fi.output(0).data[k]) << "image " << i << " logit " << k;
      EXPECT_EQ(dequantized[k], y);
    }
  }
}

TEST(QuantizeIoInt8, WrongSetterIsRefusedWithAClearMessage) {
  const CompileResult f = CompileFile(kDigits, DigitsOptions(false));
  const CompileResult q = CompileFile(kDigits, DigitsOptions(true));
  ASSERT_TRUE(f.ok && q.ok) << f.error << q.error;
  const auto qs = CreateInterpreter(q.model);
  const auto fs = CreateInterpreter(f.model);
  ASSERT_EQ(qs->status, Status::kOk) << qs->log;
  const std::vector<float> xf(64, 0.5f);
  const std::vector<int8_t> xq(64, 3);
  EXPECT_EQ(qs->interp->SetInput(0, xf.data(), xf.size()), Status::kInvalidArgument);
  EXPECT_NE(qs->log.find("SetInput: input 'image' is int8: use SetInputS8 or QuantizeInput"),
            std::string::npos)
      << qs->log;
  EXPECT_EQ(qs->interp->SetInputS8(0, xq.data(), 63), Status::kShapeMismatch);
  EXPECT_EQ(fs->interp->SetInputS8(0, xq.data(), xq.size()), Status::kInvalidArgument);
  EXPECT_EQ(fs->interp->QuantizeInput(0, xf.data(), xf.size()), Status::kInvalidArgument);
  EXPECT_NE(fs->log.find("input 'image' is float32, not int8: use SetInput"), std::string::npos)
      << fs->log;
  EXPECT_EQ(fs->interp->input(0).data_s8, nullptr);
  // The C API over the same interpreter.
  ef_interpreter* c = reinterpret_cast<ef_interpreter*>(qs->interp);
  EXPECT_EQ(ef_set_input(c, 0, xf.data(), xf.size()), EF_INVALID_ARGUMENT);
  EXPECT_EQ(ef_set_input_s8(c, 0, xq.data(), xq.size()), EF_OK);
  ef_tensor t;
  ASSERT_EQ(ef_get_input(c, 0, &t), EF_OK);
  EXPECT_EQ(t.dtype, EF_INT8);
  EXPECT_EQ(t.data, nullptr);
  EXPECT_EQ(t.data_s8[0], 3);
  EXPECT_EQ(t.scale, qs->interp->input(0).scale);
  ASSERT_EQ(ef_invoke(c), EF_OK);
  std::vector<float> y(10);
  EXPECT_EQ(ef_dequantize_output(c, 0, y.data(), y.size()), EF_OK);
  EXPECT_EQ(ef_quantize_input(c, 0, xf.data(), xf.size()), EF_OK);
}

}  // namespace
}  // namespace edgefold::compiler
