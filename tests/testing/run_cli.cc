#include "testing/run_cli.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace edgefold::testing {

CliResult RunCli(const std::string& cli, const std::string& args) {
  CliResult r;
  std::FILE* p = popen((cli + " " + args + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void ScratchDirTest::SetUp() {
  dir_ = ::testing::TempDir() + prefix_ + "_" + std::to_string(getpid()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name();
  ASSERT_EQ(std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str()), 0);
}

void ScratchDirTest::TearDown() { std::system(("rm -rf '" + dir_ + "'").c_str()); }

}  // namespace edgefold::testing
