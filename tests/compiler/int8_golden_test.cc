// compile --quantize int8 against an independent reference: tests/golden/int8/make_int8_golden.py
// (with int8_reference.py) quantizes each model in NumPy from the scheme in docs/quantization.md
// (BN folded in float64, min/max or percentile ranges, per-channel weights, int32 biases,
// (M, shift), the runtime's rounding rules) and commits the dequantized int8 outputs of every
// tapped layer. Here the compiler quantizes the same ONNX model
// with the same calibration data, the runtime runs it on every ISA level of this machine, and
// the outputs must be the same float bits: y = (q − zp)·s with s > 0, so equal bits mean equal
// int8 values. The per-layer scales, zero points and clamps are compared first, so a mismatch
// says whether the quantization parameters or the integer inference differ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "edgefold_compiler/compiler.h"
#include "testing/npy_read.h"
#include "testing/run_model.h"

namespace edgefold::compiler {
namespace {

using edgefold::testing::AvailableIsas;
using edgefold::testing::RunModel;
using kernels::testing::NpyArray;

const std::string kDir = EDGEFOLD_INT8_GOLDEN_DIR;

NpyArray Read(const std::string& path) {
  NpyArray a;
  std::string error;
  EXPECT_TRUE(kernels::testing::ReadNpyF32(path, &a, &error)) << error;
  return a;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

struct GoldenLayer {
  std::string type;
  uint32_t in_scale = 0, out_scale = 0;
  int zero_point = 0, act_min = 0, act_max = 0;
};

// layers.txt: "type|in_scale bits|out_scale bits|zero point|act_min|act_max", '#' comments.
std::vector<GoldenLayer> ReadLayers(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<GoldenLayer> layers;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string field; std::getline(ss, field, '|');) f.push_back(field);
    EXPECT_EQ(f.size(), 6u) << line;
    if (f.size() != 6) continue;
    layers.push_back({f[0], static_cast<uint32_t>(std::stoul(f[1])),
                      static_cast<uint32_t>(std::stoul(f[2])), std::stoi(f[3]), std::stoi(f[4]),
                      std::stoi(f[5])});
  }
  return layers;
}

class Int8Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Int8Golden, MatchesNumPyReferenceBitForBit) {
  const std::string dir = kDir + "/" + GetParam();
  const NpyArray calib = Read(dir + "/calib.npy"), inputs = Read(dir + "/input.npy"),
                 expected = Read(dir + "/expected.npy");
  ASSERT_FALSE(inputs.shape.empty());
  CompileOptions o;
  o.quantize_int8 = true;
  std::ifstream percentile(dir +
                           "/quantize_percentile.txt");  // 100 = min/max, as the script assumed
  ASSERT_TRUE(percentile >> o.quantize_percentile) << dir;
  o.calibration = calib.data;
  for (size_t d : calib.shape) o.calibration_shape.push_back(static_cast<int64_t>(d));
  const CompileResult q = CompileFile(dir + "/model.onnx", o);
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_TRUE(q.report.quant.float_ops.empty()) << q.report.quant.float_ops.front();

  const std::vector<GoldenLayer> want = ReadLayers(dir + "/layers.txt");
  const std::vector<QuantLayerReport>& got = q.report.quant.layers;
  ASSERT_EQ(got.size(), want.size()) << "int8 layers of the compiled model vs the reference";
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("layer " + std::to_string(i) + " " + got[i].name);
    EXPECT_EQ(got[i].type, want[i].type);
    EXPECT_EQ(Bits(got[i].in_scale), want[i].in_scale)
        << got[i].in_scale << " vs " << FromBits(want[i].in_scale);
    EXPECT_EQ(Bits(got[i].out_scale), want[i].out_scale)
        << got[i].out_scale << " vs " << FromBits(want[i].out_scale);
    EXPECT_EQ(got[i].out_zero_point, want[i].zero_point);
    EXPECT_EQ(got[i].act_min, want[i].act_min);
    EXPECT_EQ(got[i].act_max, want[i].act_max);
  }

  // Graph output 0 is the network's; the others tap int8 layers (each gets its own Dequantize),
  // so every intermediate int8 tensor is compared, not only what survives to the classifier.
  const size_t runs = inputs.shape[0], in_elems = inputs.data.size() / runs,
               want_elems = expected.data.size() / runs;
  ASSERT_EQ(expected.shape[0], runs);
  for (Isa isa : AvailableIsas())
    for (size_t r = 0; r < runs; ++r) {
      const std::vector<float> x(inputs.data.begin() + static_cast<long>(r * in_elems),
                                 inputs.data.begin() + static_cast<long>((r + 1) * in_elems));
      const auto res = RunModel(q.model, {x}, isa);
      ASSERT_EQ(res.status, Status::kOk) << res.log;
      size_t at = 0, mismatches = 0;
      for (size_t o = 0; o < res.outputs.size(); ++o)
        for (size_t k = 0; k < res.outputs[o].size() && at < want_elems; ++k, ++at) {
          const float y = res.outputs[o][k], w = expected.data[r * want_elems + at];
          if (Bits(y) != Bits(w) && ++mismatches <= 8)
            ADD_FAILURE() << IsaName(isa) << " input " << r << " output " << o << " element " << k
                          << ": " << y << " vs reference " << w;
        }
      EXPECT_EQ(at, want_elems) << "output elements of the compiled model vs the reference";
      EXPECT_EQ(mismatches, 0u) << IsaName(isa) << " input " << r;
    }
}

INSTANTIATE_TEST_SUITE_P(Models, Int8Golden,
                         ::testing::Values("net2d_residual", "net1d_grouped",
                                           "net1d_percentile99"));

}  // namespace
}  // namespace edgefold::compiler
