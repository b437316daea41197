// `edgefold export-c`'s NAME_REGISTER_OPS registers Conv with only the schedules the model's
// convs use (OpResolver::AddConvPlain, AddConvWinograd, AddConvExpansion), so a firmware links
// no other: Winograd filters and fused expansions are the compiler's choice, read back here.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "testing/run_cli.h"

namespace edgefold::tools {
namespace {

class CliExportCTest : public testing::ScratchDirTest {
 protected:
  CliExportCTest() : ScratchDirTest("edgefold_export_c") {}

  // The REGISTER_OPS line of the header export-c writes for `onnx` compiled with `flags`.
  std::string RegisterOps(const std::string& onnx, const std::string& flags) {
    const std::string model = std::string(EDGEFOLD_MODELS_DIR) + "/" + onnx;
    const testing::CliResult c =
        testing::RunCli(EDGEFOLD_CLI, "compile " + model + " " + flags + " -o " + Path("m.efb"));
    EXPECT_EQ(c.exit_code, 0) << c.output;
    const testing::CliResult e =
        testing::RunCli(EDGEFOLD_CLI, "export-c " + Path("m.efb") + " -o " + Path("m.h"));
    EXPECT_EQ(e.exit_code, 0) << e.output;
    std::ifstream in(Path("m.h"));
    std::string line;
    while (std::getline(in, line))
      if (line.find("_REGISTER_OPS(resolver)") != std::string::npos) return line;
    return "";
  }
};

TEST_F(CliExportCTest, RegistersTheConvSchedulesTheModelUses) {
  // ResNet-8's 3×3 stride-1 convs take Winograd filters and its stride-2 ones transposed
  // weights unless told not to.
  const std::string winograd = RegisterOps("resnet8.onnx", "");
  EXPECT_NE(winograd.find("AddConvWinograd()"), std::string::npos) << winograd;
  const std::string transposed = RegisterOps("resnet8.onnx", "--no-winograd");
  EXPECT_NE(transposed.find("AddConvWinograd()"), std::string::npos) << transposed;
  const std::string plain = RegisterOps("resnet8.onnx", "--no-winograd --no-transposed-weights");
  EXPECT_NE(plain.find("AddConvPlain()"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("Winograd"), std::string::npos) << plain;
  // MobileNetV1's pointwise convs fuse into the depthwise conv after them with small bands.
  const std::string expansion =
      RegisterOps("mobilenet_v1_025.onnx", "--expansion-band-kb 1 --no-transposed-weights");
  EXPECT_NE(expansion.find("AddConvExpansion()"), std::string::npos) << expansion;
  // Its pointwise convs on 6² and 3² planes store transposed weights: a schedule of their own.
  const std::string vww = RegisterOps("mobilenet_v1_025.onnx", "");
  EXPECT_NE(vww.find("AddConvWinograd()"), std::string::npos) << vww;
  const std::string both = RegisterOps("mobilenet_v1_025.onnx", "--expansion-band-kb 1");
  EXPECT_NE(both.find("AddConv()"), std::string::npos) << both;
}

}  // namespace
}  // namespace edgefold::tools
