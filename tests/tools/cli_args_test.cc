// Command-line parsing shared by the subcommands.
#include "cli_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace edgefold::tools {
namespace {

struct Argv {
  explicit Argv(std::vector<std::string> a) : args(std::move(a)) {
    for (std::string& s : args) ptrs.push_back(s.data());
  }
  int argc() const { return static_cast<int>(ptrs.size()); }
  char** argv() { return ptrs.data(); }
  std::vector<std::string> args;
  std::vector<char*> ptrs;
};

ArgSpec RunSpec() {
  ArgSpec spec;
  spec.value_flags = {"--input", "--output", "--isa"};
  spec.bool_flags = {"--no-fold"};
  spec.aliases = {{"-i", "--input"}, {"-o", "--output"}};
  spec.min_positional = spec.max_positional = 1;
  return spec;
}

TEST(CliArgs, ParsesAliasesRepeatsInlineValuesAndBools) {
  Argv a({"run", "m.efb", "-i", "a.npy", "--input=b.npy", "-o", "y.npy", "--no-fold"});
  ParsedArgs p;
  std::string error;
  ASSERT_TRUE(ParseArgs(a.argc(), a.argv(), RunSpec(), &p, &error)) << error;
  EXPECT_EQ(p.positional, std::vector<std::string>{"m.efb"});
  EXPECT_EQ(p.All("--input"), (std::vector<std::string>{"a.npy", "b.npy"}));
  EXPECT_EQ(p.Get("--output", ""), "y.npy");
  EXPECT_EQ(p.Get("--isa", "auto"), "auto");
  EXPECT_TRUE(p.Has("--no-fold"));
  EXPECT_FALSE(p.help);
}

TEST(CliArgs, RejectsUnknownFlagMissingValueAndWrongPositionals) {
  const std::vector<std::vector<std::string>> bad = {{"run", "m.efb", "--bogus"},
                                                     {"run", "m.efb", "-o"},
                                                     {"run"},
                                                     {"run", "a", "b"},
                                                     {"run", "m.efb", "--no-fold=1"}};
  for (const auto& args : bad) {
    Argv a(args);
    ParsedArgs p;
    std::string error;
    EXPECT_FALSE(ParseArgs(a.argc(), a.argv(), RunSpec(), &p, &error)) << args.back();
    EXPECT_FALSE(error.empty());
  }
}

TEST(CliArgs, HelpSkipsPositionalChecks) {
  Argv a({"run", "--help"});
  ParsedArgs p;
  std::string error;
  ASSERT_TRUE(ParseArgs(a.argc(), a.argv(), RunSpec(), &p, &error));
  EXPECT_TRUE(p.help);
}

TEST(CliArgs, ParseCountAcceptsOnlyNonNegativeIntegers) {
  int v = -1;
  std::string error;
  EXPECT_TRUE(ParseCount("--runs", "25", &v, &error));
  EXPECT_EQ(v, 25);
  for (const char* bad : {"", "-1", "abc", "3x", "99999999999999999999"}) {
    EXPECT_FALSE(ParseCount("--runs", bad, &v, &error)) << bad;
    EXPECT_NE(error.find("--runs"), std::string::npos);
  }
}

}  // namespace
}  // namespace edgefold::tools
