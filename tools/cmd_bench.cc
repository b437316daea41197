// edgefold bench MODEL.efb [--runs N] [--warmup N] [--isa NAME]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "model_session.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold bench MODEL.efb [--runs N] [--warmup N]\n"
    "                      [--isa auto|scalar|sse4.2|avx2+fma|avx512|neon]\n"
    "\n"
    "Fills every input with uniform random values in [-1, 1] (fixed seed), runs --warmup\n"
    "untimed invocations (default 10), then times --runs invocations (default 100) and\n"
    "prints min/median/p90 latency. The last line is 'median_ms=<x>'.\n";

// Nearest-rank percentile of sorted `ms`, p in [0, 1].
double Percentile(const std::vector<double>& ms, double p) {
  const size_t rank = static_cast<size_t>(p * (ms.size() - 1) + 0.5);
  return ms[std::min(rank, ms.size() - 1)];
}

bool FillRandomInputs(ModelSession& session, std::string* error) {
  Interpreter& interp = session.interpreter();
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < interp.num_inputs(); ++i) {
    std::vector<float> data(interp.input(i).elems);
    for (float& x : data) x = dist(rng);
    const Status s = interp.SetInput(i, data.data(), data.size());
    if (s != Status::kOk) { *error = session.Describe("SetInput", s); return false; }
  }
  return true;
}

bool TimeRuns(ModelSession& session, int warmup, int runs, std::vector<double>* ms,
              std::string* error) {
  Interpreter& interp = session.interpreter();
  for (int r = 0; r < warmup + runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = interp.Invoke();
    const auto t1 = std::chrono::steady_clock::now();
    if (s != Status::kOk) { *error = session.Describe("Invoke", s); return false; }
    if (r >= warmup) ms->push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms->begin(), ms->end());
  return true;
}

}  // namespace

int BenchCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--runs", "--warmup", "--isa"};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  int runs = 0, warmup = 0;
  Isa isa = Isa::kAuto;
  std::string error;
  bool counts_ok = ParseCount("--runs", args.Get("--runs", "100"), &runs, &error) &&
                   ParseCount("--warmup", args.Get("--warmup", "10"), &warmup, &error);
  if (counts_ok && runs == 0) {
    error = "option '--runs' must be at least 1";
    counts_ok = false;
  }
  if (!counts_ok) {
    std::fprintf(stderr, "edgefold bench: %s\n\n%s", error.c_str(), kUsage);
    return kExitUsage;
  }
  if (!ParseIsa(args.Get("--isa", "auto").c_str(), &isa)) {
    std::fprintf(stderr, "edgefold bench: unknown --isa '%s'\n\n%s",
                 args.Get("--isa", "").c_str(), kUsage);
    return kExitUsage;
  }
  ModelSession session;
  std::vector<double> ms;
  if (!session.Open(args.positional[0], isa, &error) || !FillRandomInputs(session, &error) ||
      !TimeRuns(session, warmup, runs, &ms, &error)) {
    std::fprintf(stderr, "edgefold bench: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf("model: %s\n", args.positional[0].c_str());
  std::printf("kernels: %s, arena: %zu bytes\n", session.interpreter().kernel_isa_name(),
              session.arena_bytes());
  std::printf("runs: %d (after %d warmup)\n", runs, warmup);
  std::printf("min_ms=%.4f median_ms=%.4f p90_ms=%.4f\n", ms.front(), Percentile(ms, 0.5),
              Percentile(ms, 0.9));
  std::printf("median_ms=%.4f\n", Percentile(ms, 0.5));
  return kExitOk;
}

}  // namespace edgefold::tools
