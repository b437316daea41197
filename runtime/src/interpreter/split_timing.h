// Whether a run splits its ops over the caller's threads or runs them all on the calling
// thread, decided by timing both on the machine it runs on (Options::adapt_splits).
//
// A split pays only while the cores pass data cheaply, and that is a property of the machine at
// the moment, not of the model: on a 2-vCPU AMD Zen 5 VM, writing lines again after the other
// core had read them cost about 11× a local write in some spells and about 2× in others, minutes
// apart (bench/threads/core_bench.cc), and ResNet-8 at two threads took 0.24–0.29 ms in the
// first against 0.19–0.20 on one thread, 0.13 in the second. The whole run is timed, not each
// op: an op run alone leaves its output in one core's cache for the next op, so per-op choices
// moved the cost rather than removed it (ResNet-8 at two threads 0.23 → 0.24 ms, MobileNetV2
// 4.17 → 4.34 with each op choosing for itself). Every split is bit-identical to no split:
// the choice changes the time, never the outputs.
//
// Only a run that went the same way as the run before it is timed. The first split run after
// runs alone finds the pool's workers asleep (they sleep once they have spun ~200 µs without a
// job) and pays their wake-up, tens of microseconds in a VM; the first run alone after split
// runs reads the half of the data the other core's cache holds. Timed cold, the split way lost
// every re-timing on the MLPerf Tiny networks and they never split: on AMD Zen 4 at two
// threads a split run after 31 runs alone took (median) 65 µs on DS-CNN, 252 on
// MobileNetV1-0.25 VWW, 231 on ResNet-8, after a split run 41–64, 164, 178 (alone 62, 189, 189).
//
// The first kSplitProbeRuns runs go split, split, alone, alone (the second of each timed); after
// that the faster way runs, and once every kSplitReprobe runs the other way runs twice (again
// the second timed). The choice turns when its own last few timed runs all got slower, or when
// a re-timing finds the other way faster: a change of spell is noticed within a few runs one
// way and within kSplitReprobe runs the other.
#pragma once
#include <cstdint>

namespace edgefold::internal {

struct SplitTiming {
  static constexpr int kKept = 3;
  float ns[2][kKept] = {};  // [alone, split]: the last kKept times of each way, 0 = none yet
  bool alone = false;       // the choice between probes
  int8_t last = -1;         // the way the last run went (1: alone), -1 before the first
};

constexpr uint64_t kSplitWayRuns = 2;  // runs in a row per probe of a way: a warm-up, a timed one
constexpr uint64_t kSplitProbeRuns = 2 * kSplitWayRuns;
constexpr uint64_t kSplitReprobe = 32;

inline bool RunAloneThisTime(const SplitTiming& t, uint64_t run) {
  if (run < kSplitProbeRuns) return run >= kSplitWayRuns;
  return (run % kSplitReprobe < kSplitWayRuns) != t.alone;
}

// The fastest of a way's kept times (0 when it has none): one preempted run does not count
// against a way, kKept slow runs in a row do.
inline float SplitEstimate(const SplitTiming& t, bool alone) {
  float best = 0;
  for (float ns : t.ns[alone ? 0 : 1])
    if (ns > 0 && (best == 0 || ns < best)) best = ns;
  return best;
}

// Keeps one run's time for the way it ran, unless the run before went the other way, then
// re-decides: the other way must be 5 % faster to win, so two near-equal ways do not flap.
inline void RecordSplitRun(SplitTiming* t, bool alone, float ns) {
  const bool warm = t->last == static_cast<int8_t>(alone);
  t->last = static_cast<int8_t>(alone);
  if (!warm) return;
  float(&kept)[SplitTiming::kKept] = t->ns[alone ? 0 : 1];
  for (int i = SplitTiming::kKept - 1; i > 0; --i) kept[i] = kept[i - 1];
  kept[0] = ns;
  const float mine = SplitEstimate(*t, t->alone), other = SplitEstimate(*t, !t->alone);
  if (mine > 0 && other > 0 && other < 0.95f * mine) t->alone = !t->alone;
}

}  // namespace edgefold::internal
