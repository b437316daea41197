// Running bin/edgefold as a user would, from a per-test scratch directory.
#pragma once
#include <gtest/gtest.h>

#include <string>

namespace edgefold::testing {

struct CliResult {
  int exit_code = -1;  // -1 when the process died of a signal: a signal is never an exit
  std::string output;  // stdout and stderr together
};

// Runs `cli args` through the shell.
CliResult RunCli(const std::string& cli, const std::string& args);

// Fixture: a fresh directory per test, <TempDir><prefix>_<pid>_<test name>, removed afterwards.
class ScratchDirTest : public ::testing::Test {
 protected:
  explicit ScratchDirTest(const std::string& prefix) : prefix_(prefix) {}
  void SetUp() override;
  void TearDown() override;
  const std::string& dir() const { return dir_; }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string prefix_, dir_;
};

}  // namespace edgefold::testing
