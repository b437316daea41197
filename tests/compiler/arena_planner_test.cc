// Planner properties: no two buffers that are live at the same step overlap in memory; the
// plan is at least the lower bound; a chain reuses memory.
#include <random>

#include <gtest/gtest.h>

#include "plan/arena_planner.h"

namespace edgefold::compiler {
namespace {

struct Buf {
  uint64_t bytes;
  int first, last;
};

void CheckPlan(const std::vector<Buf>& bufs, const ArenaPlanner& p) {
  for (size_t i = 0; i < bufs.size(); ++i) {
    EXPECT_EQ(p.offset(static_cast<int>(i)) % 64, 0u);
    EXPECT_LE(p.offset(static_cast<int>(i)) + bufs[i].bytes, p.arena_bytes());
    for (size_t j = i + 1; j < bufs.size(); ++j) {
      const bool live_together = bufs[i].first <= bufs[j].last && bufs[j].first <= bufs[i].last;
      if (!live_together || bufs[i].bytes == 0 || bufs[j].bytes == 0) continue;
      const uint64_t a = p.offset(static_cast<int>(i)), b = p.offset(static_cast<int>(j));
      const bool disjoint = a + bufs[i].bytes <= b || b + bufs[j].bytes <= a;
      EXPECT_TRUE(disjoint) << "buffers " << i << " and " << j << " overlap";
    }
  }
  EXPECT_GE(p.arena_bytes(), p.lower_bound());
}

TEST(ArenaPlanner, RandomBufferSetsNeverOverlapWhileLive) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const int steps = 1 + static_cast<int>(rng() % 20);
    const int count = 1 + static_cast<int>(rng() % 40);
    std::vector<Buf> bufs;
    ArenaPlanner p;
    for (int i = 0; i < count; ++i) {
      const int a = static_cast<int>(rng() % steps), b = static_cast<int>(rng() % steps);
      Buf buf{1 + rng() % 5000, std::min(a, b), std::max(a, b)};
      bufs.push_back(buf);
      p.AddBuffer(buf.bytes, buf.first, buf.last);
    }
    p.Plan();
    CheckPlan(bufs, p);
  }
}

TEST(ArenaPlanner, ChainReusesMemory) {
  // t0 → op0 → t1 → op1 → t2 → op2 → t3: each tensor lives across two steps.
  ArenaPlanner p;
  std::vector<Buf> bufs = {{1000, 0, 0}, {1000, 0, 1}, {1000, 1, 2}, {1000, 2, 2}};
  for (const Buf& b : bufs) p.AddBuffer(b.bytes, b.first, b.last);
  p.Plan();
  CheckPlan(bufs, p);
  EXPECT_EQ(p.arena_bytes(), 2 * AlignUp(1000));  // two live at a time, not four
  EXPECT_EQ(p.lower_bound(), 2 * AlignUp(1000));
}

TEST(ArenaPlanner, LowerBoundIsMaxLiveSum) {
  ArenaPlanner p;
  p.AddBuffer(64, 0, 2);
  p.AddBuffer(128, 1, 1);
  p.AddBuffer(640, 2, 3);
  p.Plan();
  EXPECT_EQ(p.lower_bound(), 704u);  // step 2: 64 + 640
  EXPECT_GE(p.arena_bytes(), 704u);
}

}  // namespace
}  // namespace edgefold::compiler
