// edgefold bench MODEL.efb [--runs N] [--warmup N] [--isa NAME] [--profile | --train]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "bench_train.h"
#include "model_session.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold bench MODEL.efb [--runs N] [--warmup N] [--profile | --train]\n"
    "                      [--isa auto|scalar|sse4.2|avx2+fma|avx512|neon]\n"
    "                      [--threads N [--fixed-split]]\n"
    "\n"
    "Fills every input with uniform random values in [-1, 1] (fixed seed), runs --warmup\n"
    "untimed invocations (default 10), then times --runs invocations (default 100) and\n"
    "prints min/median/p90 latency. The last line is 'median_ms=<x>'.\n"
    "--profile also prints each op's share of the time (mean over the timed runs, slowest\n"
    "first), from a callback the runtime makes after every op.\n"
    "--train times one training step instead (a model compiled with --train: forward with\n"
    "batch statistics, loss, backward, SGD on what the model trains; random inputs and labels).\n"
    "--threads N: each run splits its ops over N threads or runs them on one, whichever the\n"
    "last runs timed faster (it prints how many split); --fixed-split: every run splits.\n";

// Per-op wall time between the runtime's after-op callbacks (Start() before each Invoke).
class OpProfiler {
 public:
  static void OnOpEnd(void* user, size_t op) {
    auto* self = static_cast<OpProfiler*>(user);
    const auto now = std::chrono::steady_clock::now();
    if (self->recording_) {
      if (self->total_ms_.size() <= op) self->total_ms_.resize(op + 1, 0.0);
      self->total_ms_[op] += std::chrono::duration<double, std::milli>(now - self->last_).count();
    }
    self->last_ = now;
  }
  void Start(bool recording) {
    recording_ = recording;
    last_ = std::chrono::steady_clock::now();
  }
  void Print(const Interpreter& interp, int runs) const {
    double sum = 0;
    for (double ms : total_ms_) sum += ms;
    std::vector<size_t> order(total_ms_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return total_ms_[a] > total_ms_[b]; });
    std::printf("per-op profile (mean ms per run, %% of the ops' total):\n");
    for (size_t i : order)
      std::printf("  #%-4zu %-14s %9.4f ms %5.1f%%  %s\n", i, interp.op_type(i),
                  total_ms_[i] / runs, sum > 0 ? 100.0 * total_ms_[i] / sum : 0.0,
                  interp.op_name(i));
  }

 private:
  std::vector<double> total_ms_;
  std::chrono::steady_clock::time_point last_;
  bool recording_ = false;
};

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
    const Status s = interp.input(i).dtype == DType::kInt8
                         ? interp.QuantizeInput(i, data.data(), data.size())
                         : interp.SetInput(i, data.data(), data.size());
    if (s != Status::kOk) {
      *error = session.Describe("SetInput", s);
      return false;
    }
  }
  return true;
}

bool TimeRuns(ModelSession& session, int warmup, int runs, std::vector<double>* ms,
              std::string* error, OpProfiler* profiler) {
  Interpreter& interp = session.interpreter();
  for (int r = 0; r < warmup + runs; ++r) {
    if (profiler != nullptr) profiler->Start(r >= warmup);
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = interp.Invoke();
    const auto t1 = std::chrono::steady_clock::now();
    if (s != Status::kOk) {
      *error = session.Describe("Invoke", s);
      return false;
    }
    if (r >= warmup) ms->push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms->begin(), ms->end());
  return true;
}

}  // namespace

namespace {

// --runs, --warmup, --threads: false with `error` on a bad value.
bool ParseBenchCounts(const ParsedArgs& args, int* runs, int* warmup, int* threads,
                      std::string* error) {
  if (!ParseCount("--runs", args.Get("--runs", "100"), runs, error) ||
      !ParseCount("--warmup", args.Get("--warmup", "10"), warmup, error) ||
      !ParseCount("--threads", args.Get("--threads", "1"), threads, error))
    return false;
  if (*runs == 0 || *threads == 0) {
    *error = "options '--runs' and '--threads' must be at least 1";
    return false;
  }
  return true;
}

// --train: the training step's times.
int BenchTrainStep(const std::string& path, Isa isa, int warmup, int runs) {
  TrainBenchResult r;
  std::string error;
  if (!TimeTrainSteps(path, isa, warmup, runs, &r, &error)) {
    std::fprintf(stderr, "edgefold bench: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf("model: %s (training step, batch %zu)\n", path.c_str(), r.batch);
  std::printf("kernels: %s, training arena: %zu bytes\n", r.isa.c_str(), r.arena_bytes);
  std::printf("runs: %d (after %d warmup)\n", runs, warmup);
  std::printf("min_ms=%.4f median_ms=%.4f p90_ms=%.4f\n", r.ms.front(), Percentile(r.ms, 0.5),
              Percentile(r.ms, 0.9));
  std::printf("median_ms=%.4f\n", Percentile(r.ms, 0.5));
  return kExitOk;
}

}  // namespace

int BenchCommand(int argc, char** argv) {
  ArgSpec spec;
  spec.value_flags = {"--runs", "--warmup", "--isa", "--threads"};
  spec.bool_flags = {"--profile", "--train", "--fixed-split"};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  int runs = 0, warmup = 0, threads = 1;
  Isa isa = Isa::kAuto;
  std::string error;
  if (!ParseBenchCounts(args, &runs, &warmup, &threads, &error)) {
    std::fprintf(stderr, "edgefold bench: %s\n\n%s", error.c_str(), kUsage);
    return kExitUsage;
  }
  if (!ParseIsa(args.Get("--isa", "auto").c_str(), &isa)) {
    std::fprintf(stderr, "edgefold bench: unknown --isa '%s'\n\n%s", args.Get("--isa", "").c_str(),
                 kUsage);
    return kExitUsage;
  }
  if (args.Has("--train")) return BenchTrainStep(args.positional[0], isa, warmup, runs);
  ModelSession session;
  session.SetThreads(static_cast<size_t>(threads), !args.Has("--fixed-split"));
  std::vector<double> ms;
  OpProfiler profiler;
  const bool profile = args.Has("--profile");
  if (!session.Open(args.positional[0], isa, &error, profile ? &OpProfiler::OnOpEnd : nullptr,
                    &profiler) ||
      !FillRandomInputs(session, &error) ||
      !TimeRuns(session, warmup, runs, &ms, &error, profile ? &profiler : nullptr)) {
    std::fprintf(stderr, "edgefold bench: %s\n", error.c_str());
    return kExitFailure;
  }
  std::printf("model: %s\n", args.positional[0].c_str());
  std::printf("kernels: %s, threads: %d, arena: %zu bytes\n",
              session.interpreter().kernel_isa_name(), threads, session.arena_bytes());
  const CacheInfo caches = HostCacheInfo();
  std::printf("caches: L1d %zu KiB, L2 %zu KiB per core (GEMM blocks: kc %zu, mc %zu)\n",
              caches.l1d_bytes / 1024, caches.l2_bytes / 1024, caches.gemm_kc, caches.gemm_mc);
  std::printf("runs: %d (after %d warmup)\n", runs, warmup);
  if (threads > 1)  // Options::adapt_splits: the runs the last runs' times sent to one thread
    std::printf(
        "split over threads: %zu of %zu runs, warmup included (the rest timed faster on one "
        "thread)\n",
        session.interpreter().split_invocations(), session.interpreter().invocations());
  std::printf("min_ms=%.4f median_ms=%.4f p90_ms=%.4f\n", ms.front(), Percentile(ms, 0.5),
              Percentile(ms, 0.9));
  if (profile) profiler.Print(session.interpreter(), runs);
  std::printf("median_ms=%.4f\n", Percentile(ms, 0.5));
  return kExitOk;
}

}  // namespace edgefold::tools
