// Options::adapt_splits' decision (interpreter/split_timing.h): which way a run goes, given the
// times of the runs before it.
#include <gtest/gtest.h>

#include <vector>

#include "interpreter/split_timing.h"

namespace edgefold::internal {
namespace {

// Runs `runs` invocations whose split and alone ways take split_ns(run) and alone_ns(run);
// returns the way each one went (true: alone).
template <class SplitNs, class AloneNs>
std::vector<bool> Simulate(SplitTiming* t, uint64_t first, uint64_t runs, SplitNs split_ns,
                           AloneNs alone_ns) {
  std::vector<bool> ways;
  for (uint64_t run = first; run < first + runs; ++run) {
    const bool alone = RunAloneThisTime(*t, run);
    RecordSplitRun(t, alone, alone ? alone_ns(run) : split_ns(run));
    ways.push_back(alone);
  }
  return ways;
}

size_t CountAlone(const std::vector<bool>& ways, size_t from, size_t to) {
  size_t n = 0;
  for (size_t i = from; i < to; ++i) n += ways[i];
  return n;
}

// The re-timing's runs of the other way (true: this run goes the other way).
bool Retiming(uint64_t run) {
  return run >= kSplitProbeRuns && run % kSplitReprobe < kSplitWayRuns;
}

TEST(SplitTiming, ProbesBothWaysThenRunsTheFasterAndRetimesTheOther) {
  SplitTiming t;
  const std::vector<bool> ways = Simulate(
      &t, 0, 96, [](uint64_t) { return 200.0f; }, [](uint64_t) { return 100.0f; });
  EXPECT_EQ(ways[0], false);
  EXPECT_EQ(ways[1], false);
  EXPECT_EQ(ways[2], true);
  EXPECT_EQ(ways[3], true);
  EXPECT_TRUE(t.alone);
  // From run 4 on: alone, except two split runs in a row every kSplitReprobe runs.
  for (uint64_t run = 4; run < 96; ++run) EXPECT_EQ(ways[run], !Retiming(run)) << run;
}

// A way's first run after runs the other way is not timed (a split run after runs alone wakes
// the pool's workers): cold split runs, however slow, never count against splitting.
TEST(SplitTiming, TimesOnlyARunThatFollowsARunTheSameWay) {
  SplitTiming t;
  std::vector<bool> ways;
  bool last = true;
  for (uint64_t run = 0; run < 200; ++run) {
    const bool alone = RunAloneThisTime(t, run);
    const float ns = alone ? 100.0f : last ? 1000.0f : 80.0f;  // split: cold after alone runs
    RecordSplitRun(&t, alone, ns);
    ways.push_back(alone);
    last = alone;
  }
  EXPECT_FALSE(t.alone);
  EXPECT_EQ(t.ns[1][0], 80.0f);
  EXPECT_EQ(t.ns[0][0], 100.0f);
  EXPECT_EQ(CountAlone(ways, 4, 200), 2 * (200 / kSplitReprobe));  // the re-timings' runs alone
}

TEST(SplitTiming, KeepsSplittingWhenItIsFaster) {
  SplitTiming t;
  const std::vector<bool> ways = Simulate(
      &t, 0, 64, [](uint64_t) { return 60.0f; }, [](uint64_t) { return 100.0f; });
  EXPECT_FALSE(t.alone);
  EXPECT_EQ(CountAlone(ways, 4, 64), kSplitWayRuns);  // runs 32 and 33, the re-timing
}

TEST(SplitTiming, FollowsAChangeOfSpellBothWays) {
  SplitTiming t;
  // Splitting pays for 100 runs, then costs 1.5× running alone for 200, then pays again.
  const auto split = [](uint64_t run) { return run < 100 || run >= 300 ? 60.0f : 150.0f; };
  const std::vector<bool> ways = Simulate(&t, 0, 400, split, [](uint64_t) { return 100.0f; });
  EXPECT_EQ(CountAlone(ways, 4, 100), 96 / kSplitReprobe * kSplitWayRuns);
  // Noticed after kKept slow split runs in a row: the rest of the slow spell goes alone but for
  // its re-timings of the split way.
  for (uint64_t run = 100 + SplitTiming::kKept + 1; run < 300; ++run)
    EXPECT_EQ(ways[run], !Retiming(run)) << run;
  // Back to splitting within two re-timings of the split way.
  EXPECT_LE(CountAlone(ways, 300 + 2 * kSplitReprobe, 400),
            ((100 - 2 * kSplitReprobe) / kSplitReprobe + 1) * kSplitWayRuns);
  EXPECT_FALSE(t.alone);
}

TEST(SplitTiming, OneSlowRunDoesNotFlipTheChoice) {
  SplitTiming t;
  // One preempted split run (10×) must not send the runs after it alone.
  const auto split = [](uint64_t run) { return run == 10 ? 1000.0f : 100.0f; };
  const std::vector<bool> ways = Simulate(&t, 0, 40, split, [](uint64_t) { return 103.0f; });
  EXPECT_EQ(CountAlone(ways, 4, 40), kSplitWayRuns);  // runs 32 and 33, the re-timing, only
  EXPECT_FALSE(t.alone);
}

}  // namespace
}  // namespace edgefold::internal
