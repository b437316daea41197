// Old-IR formalities that ONNX 1.12's checker refuses are repaired before it runs (an IR-3
// model that leaves its initializers out of the graph inputs, an IR stamp below 3 or none next
// to an opset_import); really malformed models are still refused with a message naming the
// model and the problem.
#include <fstream>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/checker.h>

#include "edgefold_compiler/compiler.h"
#include "ir/import.h"
#include "testing/onnx_builder.h"

namespace edgefold::compiler {
namespace {
using ::testing::HasSubstr;
using testing::OnnxBuilder;

// x[1,3,6,6] → Conv → BatchNorm → Relu → Flatten → Gemm → y[1,2], at opset 8 so the model
// also goes through the version converter. IR 7: initializers are not graph inputs.
onnx::ModelProto ConvNetIr7() {
  OnnxBuilder b(8);
  b.Input("x", {1, 3, 6, 6});
  b.Init("conv.w", {4, 3, 3, 3}, testing::RandomVector(108, 11))
      .Init("conv.b", {4}, testing::RandomVector(4, 12));
  b.Node("Conv", {"x", "conv.w", "conv.b"}, {"c"}, "conv");
  testing::AddBatchNorm(b, "bn", "c", "n", 4, 13);
  b.Node("Relu", {"n"}, {"r"}, "relu");
  b.Node("Flatten", {"r"}, {"f"}, "flatten");
  b.Init("fc.w", {2, 64}, testing::RandomVector(128, 14))
      .Init("fc.b", {2}, testing::RandomVector(2, 15));
  auto& fc = b.Node("Gemm", {"f", "fc.w", "fc.b"}, {"y"}, "fc");
  testing::SetInt(fc, "transB", 1);
  b.Output("y");
  return b.model();
}

// Declares every initializer of `m` as a graph input too (the IR ≤ 3 layout).
void DeclareInitializersAsInputs(onnx::ModelProto* m) {
  for (const auto& init : m->graph().initializer()) {
    auto* in = m->mutable_graph()->add_input();
    in->set_name(init.name());
    auto* tensor_type = in->mutable_type()->mutable_tensor_type();
    tensor_type->set_elem_type(init.data_type());
    for (int64_t d : init.dims()) tensor_type->mutable_shape()->add_dim()->set_dim_value(d);
  }
}

std::vector<float> CompileAndRun(const onnx::ModelProto& m, const std::vector<float>& x) {
  CompileOptions o;
  o.model_name = "legacy.onnx";
  const CompileResult r = CompileModel(m, o);
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return {};
  EXPECT_EQ(testing::ModelOf(r.model)->inputs()->size(), 1u) << "initializers must stay constants";
  return testing::RunEfb(r.model, {x}).at(0);
}

bool CheckerAccepts(const onnx::ModelProto& m) {
  try {
    onnx::checker::check_model(m);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

const std::vector<float> kInput = testing::RandomVector(108, 21);

TEST(LegacyIr, Ir3WithoutInitializerInputsMatchesIr7) {
  const onnx::ModelProto ir7 = ConvNetIr7();
  onnx::ModelProto ir3 = ir7;
  ir3.set_ir_version(3);
  ASSERT_FALSE(CheckerAccepts(ir3))
      << "the strict checker must refuse this layout, else the test proves nothing";
  const std::vector<float> expect = CompileAndRun(ir7, kInput);
  const std::vector<float> got = CompileAndRun(ir3, kInput);
  ASSERT_EQ(expect.size(), 2u);
  EXPECT_EQ(got, expect);
}

TEST(LegacyIr, Ir3WithInitializersAsInputsStillConstants) {
  const onnx::ModelProto ir7 = ConvNetIr7();
  onnx::ModelProto ir3 = ir7;
  ir3.set_ir_version(3);
  DeclareInitializersAsInputs(&ir3);
  ASSERT_TRUE(CheckerAccepts(ir3));
  const std::vector<float> expect = CompileAndRun(ir7, kInput);
  ASSERT_EQ(expect.size(), 2u);
  EXPECT_EQ(CompileAndRun(ir3, kInput), expect);
}

TEST(LegacyIr, Ir3WithSomeInitializersDeclaredMatchesIr7) {
  const onnx::ModelProto ir7 = ConvNetIr7();
  onnx::ModelProto ir3 = ir7;
  ir3.set_ir_version(3);
  DeclareInitializersAsInputs(&ir3);
  ir3.mutable_graph()->mutable_input()->RemoveLast();  // fc.b left undeclared
  ASSERT_FALSE(CheckerAccepts(ir3));
  EXPECT_EQ(CompileAndRun(ir3, kInput), CompileAndRun(ir7, kInput));
}

// opset_import arrived with IR 3, so a lower or missing stamp beside one is read as IR 3.
TEST(LegacyIr, IrStampBelow3WithOpsetImportReadAsIr3) {
  const onnx::ModelProto ir7 = ConvNetIr7();
  const std::vector<float> expect = CompileAndRun(ir7, kInput);
  ASSERT_EQ(expect.size(), 2u);
  for (int ir : {-1, 0, 1, 2}) {
    onnx::ModelProto old = ir7;
    if (ir < 0)
      old.clear_ir_version();
    else
      old.set_ir_version(ir);
    ASSERT_FALSE(CheckerAccepts(old)) << "ir " << ir;
    EXPECT_EQ(CompileAndRun(old, kInput), expect) << "ir " << ir;
  }
}

TEST(LegacyIr, DanglingNodeInputIsRefusedNamingModelAndName) {
  for (int ir : {3, 7}) {
    OnnxBuilder b;
    b.Input("x", {1, 4}).Init("w", {4}, {1, 2, 3, 4});
    b.Node("Mul", {"x", "w"}, {"a"}, "scale");
    b.Node("Add", {"a", "ghost"}, {"y"}, "shift");  // nothing produces 'ghost'
    b.Output("y");
    onnx::ModelProto m = b.model();
    m.set_ir_version(ir);
    auto* y_shape = m.mutable_graph()
                        ->mutable_output(0)
                        ->mutable_type()
                        ->mutable_tensor_type()
                        ->mutable_shape();
    y_shape
        ->clear_dim();  // the builder cannot infer it past 'ghost'; declare it, so only 'ghost' is wrong
    for (int64_t d : {1, 4}) y_shape->add_dim()->set_dim_value(d);
    CompileOptions o;
    o.model_name = "dangling.onnx";
    const CompileResult r = CompileModel(m, o);
    ASSERT_FALSE(r.ok) << "ir " << ir;
    EXPECT_THAT(r.error, HasSubstr("model 'dangling.onnx'"));
    EXPECT_THAT(r.error, HasSubstr("node 'shift' (op 'Add') reads 'ghost', which no node"));
  }
}

TEST(LegacyIr, Ir3InputContradictingItsInitializerIsRefusedNamingIt) {
  for (bool wrong_type : {true, false}) {
    onnx::ModelProto m = ConvNetIr7();
    m.set_ir_version(3);
    DeclareInitializersAsInputs(&m);
    for (auto& in : *m.mutable_graph()->mutable_input()) {
      if (in.name() != "conv.b") continue;
      auto* tensor_type = in.mutable_type()->mutable_tensor_type();
      if (wrong_type)
        tensor_type->set_elem_type(onnx::TensorProto::INT64);
      else
        tensor_type->mutable_shape()->mutable_dim(0)->set_dim_value(5);
    }
    CompileOptions o;
    o.model_name = "mistyped.onnx";
    const CompileResult r = CompileModel(m, o);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error, std::string("model 'mistyped.onnx': graph input 'conv.b' is declared ") +
                           (wrong_type ? "INT64[4]" : "FLOAT[5]") +
                           " but its initializer is FLOAT[4]");
  }
}

TEST(LegacyIr, DuplicateInitializerIsRefused) {
  onnx::ModelProto m = ConvNetIr7();
  m.set_ir_version(3);
  *m.mutable_graph()->add_initializer() = m.graph().initializer(0);
  CompileOptions o;
  o.model_name = "dup.onnx";
  const CompileResult r = CompileModel(m, o);
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("model 'dup.onnx'"));
  EXPECT_THAT(r.error, HasSubstr("conv.w initializer name is not unique"));
}

// A real IR-3 PyTorch export with its initializer declarations stripped still compiles and
// matches the stored reference output.
TEST(LegacyIr, PytorchConvertedIr3WithoutInitializerInputs) {
  const std::string dir = "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d";
  std::ifstream f(dir + "/model.onnx", std::ios::binary);
  if (!f) GTEST_SKIP() << "libonnx-testdata not installed";
  std::stringstream bytes;
  bytes << f.rdbuf();
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes.str()));
  ASSERT_EQ(m.ir_version(), 3);
  std::set<std::string> initializers;
  for (const auto& init : m.graph().initializer()) initializers.insert(init.name());
  ASSERT_FALSE(initializers.empty());
  auto* inputs = m.mutable_graph()->mutable_input();
  for (int i = inputs->size() - 1; i >= 0; --i)
    if (initializers.count(inputs->Get(i).name())) inputs->DeleteSubrange(i, 1);
  ASSERT_FALSE(CheckerAccepts(m));

  auto read_tensor = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    onnx::TensorProto t;
    EXPECT_TRUE(t.ParseFromString(s.str())) << path;
    return ir::TensorFromProto(t, path).data;
  };
  const auto x = read_tensor(dir + "/test_data_set_0/input_0.pb");
  const auto expect = read_tensor(dir + "/test_data_set_0/output_0.pb");
  const std::vector<float> y = CompileAndRun(m, std::vector<float>(x.begin(), x.end()));
  ASSERT_EQ(y.size(), expect.size());
  EXPECT_LT(testing::MaxRelError(y, std::vector<float>(expect.begin(), expect.end())), 1e-4);
}

}  // namespace
}  // namespace edgefold::compiler
