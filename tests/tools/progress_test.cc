// The progress bar draws frames only on a terminal, and its frames say how far along we are.
#include "progress.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace edgefold::tools {
namespace {

std::string Contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}

TEST(ProgressTest, RendersBarPercentAndCount) {
  EXPECT_EQ(Progress::Render("train", 5, 10, 0, "", 10), "train [#####.....]  50% 5/10");
  EXPECT_EQ(Progress::Render("train", 10, 10, 0, "loss 0.25", 4),
            "train [####] 100% 10/10 loss 0.25");
  EXPECT_EQ(Progress::Render("x", 99, 10, 0, "", 4), "x [####] 100% 10/10");     // clamped
  EXPECT_EQ(Progress::Render("compiling", 0, 0, 2.0, ""), "compiling | 2.0 s");  // spinner
}

TEST(ProgressTest, SilentWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p("work", 3, f);
    EXPECT_FALSE(p.enabled());
    for (size_t i = 0; i <= 3; ++i) p.Update(i);
  }
  bool ran = false;
  RunWithSpinner(
      "work", [&] { ran = true; }, f);
  EXPECT_TRUE(ran);
  EXPECT_EQ(Contents(f), "");
  std::fclose(f);
}

TEST(ProgressTest, ForcedDrawsOnOneLineAndClearsIt) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Progress p("work", 2, f);
  p.ForceEnable();
  p.Update(2);  // the final frame is always drawn
  p.Finish();
  const std::string out = Contents(f);
  EXPECT_EQ(out.find('\n'), std::string::npos);
  EXPECT_NE(out.find("\rwork ["), std::string::npos);
  EXPECT_NE(out.find("100% 2/2"), std::string::npos);
  EXPECT_EQ(out.back(), '\r');  // cleared: the next output starts at column 0
  std::fclose(f);
}

}  // namespace
}  // namespace edgefold::tools
