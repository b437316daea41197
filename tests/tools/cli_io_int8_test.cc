// compile --quantize int8 --io int8 → inspect → run, as a user would: the report and inspect
// show int8 I/O with its scale and zero point; run quantizes a float32 input or takes an int8
// one, writes int8 outputs (or float32 with --dequantize) that match the float-I/O model's
// output after dequantization bit for bit; --io without --quantize is a usage error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "npy.h"
#include "testing/run_cli.h"
#include "testing/tiny_onnx_models.h"

namespace edgefold::tools {
namespace {

using Result = testing::CliResult;

Result Cli(const std::string& args) { return testing::RunCli(EDGEFOLD_CLI, args); }

bool Contains(const Result& r, const std::string& s) {
  return r.output.find(s) != std::string::npos;
}

// The scale and zero point `run` prints for "<what> <index> '<name>' is int8 (scale S, zero point Z".
bool ParseQuant(const Result& r, const std::string& prefix, float* scale, int* zero_point) {
  const size_t at = r.output.find(prefix + " is int8 (scale ");
  return at != std::string::npos &&
         std::sscanf(r.output.c_str() + at + prefix.size(), " is int8 (scale %g, zero point %d",
                     scale, zero_point) == 2;
}

class CliIoInt8 : public testing::ScratchDirTest {
 protected:
  CliIoInt8() : ScratchDirTest("edgefold_cli_io_int8") {}

  void SetUp() override {
    ScratchDirTest::SetUp();
    std::string error;
    ASSERT_TRUE(testing::WriteConvBnModel(Path("m.onnx"), &error))
        << error;  // x [1, 2, 5, 5] → y [1, 4]
    std::vector<float> calib(8 * testing::kConvBnInputElems);
    for (size_t i = 0; i < calib.size(); ++i) calib[i] = std::sin(0.37f * static_cast<float>(i));
    ASSERT_TRUE(
        WriteNpyFloat32(Path("calib.npy"), calib.data(), calib.size(), {8, 2, 5, 5}, &error))
        << error;
    ASSERT_TRUE(WriteNpyFloat32(Path("x.npy"), calib.data(), 3 * testing::kConvBnInputElems,
                                {3, 2, 5, 5}, &error));
  }
  Result Compile(const std::string& out, const std::string& extra) {
    return Cli("compile " + Path("m.onnx") + " -o " + Path(out) + " --quantize int8 --calibrate " +
               Path("calib.npy") + " " + extra);
  }
  NpyArray Read(const std::string& name) {
    NpyArray a;
    std::string error;
    EXPECT_TRUE(ReadNpy(Path(name), &a, &error)) << error;
    return a;
  }
};

TEST_F(CliIoInt8, CompileInspectAndRun) {
  Result r = Compile("float_io.efb", "");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "int8 I/O: float")) << r.output;
  r = Compile("int8_io.efb", "--io int8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "int8 I/O: int8 (--io int8)")) << r.output;
  EXPECT_TRUE(Contains(r, "input 'x': int8, scale ")) << r.output;
  EXPECT_TRUE(Contains(r, "output 'y': int8, scale ")) << r.output;

  r = Cli("inspect " + Path("int8_io.efb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "x [1, 2, 5, 5] Int8 scale ")) << r.output;
  EXPECT_TRUE(Contains(r, "y [1, 4] Int8 scale ")) << r.output;
  r = Cli("inspect " + Path("float_io.efb"));
  EXPECT_TRUE(Contains(r, "x [1, 2, 5, 5] Float32")) << r.output;

  // float32 input quantized, int8 output written.
  ASSERT_EQ(Cli("run " + Path("float_io.efb") + " -i " + Path("x.npy") + " -o " + Path("yf.npy"))
                .exit_code,
            0);
  r = Cli("run " + Path("int8_io.efb") + " -i " + Path("x.npy") + " -o " + Path("yq.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "float32 data quantized with them")) << r.output;
  EXPECT_TRUE(Contains(r, "written as int8 (--dequantize for float32)")) << r.output;
  float in_scale = 0, out_scale = 0;
  int in_zp = 0, out_zp = 0;
  ASSERT_TRUE(ParseQuant(r, "input 0 'x'", &in_scale, &in_zp)) << r.output;
  ASSERT_TRUE(ParseQuant(r, "output 0 'y'", &out_scale, &out_zp)) << r.output;
  const NpyArray yf = Read("yf.npy"), yq = Read("yq.npy");
  ASSERT_EQ(yq.dtype, NpyDType::kInt8);
  ASSERT_EQ(yq.shape, (std::vector<int64_t>{3, 4}));
  ASSERT_EQ(yf.f32.size(), yq.s8.size());
  for (size_t k = 0; k < yq.s8.size(); ++k)  // Dequantize is (q − zp)·s in float: exact
    EXPECT_EQ(static_cast<float>(yq.s8[k] - out_zp) * out_scale, yf.f32[k]) << k;

  // --dequantize writes float32: the float-I/O model's bits.
  r = Cli("run " + Path("int8_io.efb") + " -i " + Path("x.npy") + " -o " + Path("yd.npy") +
          " --dequantize");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const NpyArray yd = Read("yd.npy");
  ASSERT_EQ(yd.dtype, NpyDType::kFloat32);
  EXPECT_EQ(yd.f32, yf.f32);

  // An int8 input file is used as is: the bytes of quantize(x) give the same int8 output.
  const NpyArray x = Read("x.npy");
  std::vector<int8_t> xq(x.f32.size());
  for (size_t k = 0; k < xq.size(); ++k)
    xq[k] = static_cast<int8_t>(std::fmax(
        -128.0f, std::fmin(127.0f, std::nearbyint(x.f32[k] * (1.0f / in_scale)) + float(in_zp))));
  std::string error;
  ASSERT_TRUE(WriteNpyInt8(Path("xq.npy"), xq.data(), xq.size(), x.shape, &error)) << error;
  r = Cli("run " + Path("int8_io.efb") + " -i " + Path("xq.npy") + " -o " + Path("yq2.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r, "int8 data used as is")) << r.output;
  EXPECT_EQ(Read("yq2.npy").s8, yq.s8);
  // ... but not by a float-input model.
  r = Cli("run " + Path("float_io.efb") + " -i " + Path("xq.npy") + " -o " + Path("bad.npy"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r, "must be float32 ('<f4'), the file holds int8")) << r.output;
}

TEST_F(CliIoInt8, IoNeedsQuantizeInt8) {
  Result r = Cli("compile " + Path("m.onnx") + " -o " + Path("m.efb") + " --io int8");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r, "--io int8 needs --quantize int8")) << r.output;
  r = Compile("m.efb", "--io int16");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r, "--io must be float or int8, got 'int16'")) << r.output;
}

}  // namespace
}  // namespace edgefold::tools
