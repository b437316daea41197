// Determinism: on one machine and one dispatch level, the same model and input give
// bit-identical outputs run after run, after SetInput of other data in between, and after a
// fresh Create in a different arena. Checked on every ISA this CPU offers, for the repo's real
// models (the digits CNN and every golden case, compiled here) folded and unfolded.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "edgefold_compiler/compiler.h"
#include "testing/efb_builder.h"
#include "testing/run_model.h"
#include "testing/tiny_model.h"

namespace edgefold::testing {
namespace {

// All outputs of one Invoke, concatenated, as raw bits.
std::vector<uint32_t> RunOnce(Interpreter* interp, const std::vector<std::vector<float>>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    EXPECT_EQ(interp->SetInput(i, inputs[i].data(), inputs[i].size()), Status::kOk);
  EXPECT_EQ(interp->Invoke(), Status::kOk);
  std::vector<uint32_t> bits;
  for (size_t o = 0; o < interp->num_outputs(); ++o) {
    const TensorView y = interp->output(o);
    const size_t at = bits.size();
    bits.resize(at + y.elems);
    std::memcpy(bits.data() + at, y.data, y.elems * sizeof(float));
  }
  return bits;
}

Interpreter* Create(const AlignedBuffer& model, AlignedBuffer& arena, Isa isa) {
  Options o;
  o.isa = isa;
  Interpreter* interp = nullptr;
  EXPECT_EQ(Interpreter::Create(model.data(), model.size(), arena.data(), arena.size(), o, &interp),
            Status::kOk);
  return interp;
}

void ExpectDeterministic(const std::vector<uint8_t>& bytes, const std::string& name) {
  AlignedBuffer model(bytes);
  size_t need = 0;
  ASSERT_EQ(RequiredArenaBytes(model.data(), model.size(), &need), Status::kOk) << name;
  for (Isa isa : AvailableIsas()) {
    SCOPED_TRACE(name + " on " + IsaName(isa));
    AlignedBuffer arena(need), other_arena(need);
    Interpreter* a = Create(model, arena, isa);
    ASSERT_NE(a, nullptr);
    std::vector<std::vector<float>> x, noise;
    for (size_t i = 0; i < a->num_inputs(); ++i) {
      x.push_back(RandomVector(a->input(i).elems, 17 + static_cast<unsigned>(i), -2.0f, 2.0f));
      noise.push_back(
          RandomVector(a->input(i).elems, 99 + static_cast<unsigned>(i), -50.0f, 50.0f));
    }
    const std::vector<uint32_t> first = RunOnce(a, x);
    for (int run = 0; run < 3; ++run) EXPECT_EQ(RunOnce(a, x), first) << "run " << run;
    RunOnce(a, noise);  // other data in between must leave nothing behind
    EXPECT_EQ(RunOnce(a, x), first) << "after other input";
    Interpreter* b = Create(model, other_arena, isa);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(RunOnce(b, x), first) << "after a fresh Create in another arena";
  }
}

TEST(Determinism, TinyModel) { ExpectDeterministic(MakeTinyModel().bytes, "tiny"); }

TEST(Determinism, RepoModelsFoldedAndUnfolded) {
  std::vector<std::string> paths = {std::string(EDGEFOLD_SOURCE_DIR) +
                                    "/examples/digits/digits_cnn.onnx"};
  for (const char* c :
       {"conv_bn_relu", "residual_block", "concat_branches", "conv_depthwise_bn_relu6",
        "avgpool_padded_excl", "maxpool_padded", "softmax_head", "linear_bn1d_relu",
        "conv_grouped_bn", "conv_dilated_bn", "hardswish", "sigmoid_mul"})
    paths.push_back(std::string(EDGEFOLD_SOURCE_DIR) + "/tests/golden/data/" + c + "/model.onnx");
  for (const std::string& path : paths) {
    for (bool fold : {true, false}) {
      compiler::CompileOptions options;
      options.fold_batchnorm = fold;
      options.verify = false;
      const compiler::CompileResult r = compiler::CompileFile(path, options);
      ASSERT_TRUE(r.ok) << path << ": " << r.error;
      ExpectDeterministic(r.model, path + (fold ? " folded" : " unfolded"));
    }
  }
}

}  // namespace
}  // namespace edgefold::testing
