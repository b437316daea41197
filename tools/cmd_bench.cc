// edgefold bench MODEL.efb [--runs N] [--warmup N] [--isa NAME] [--profile | --train]
//                         [--ort MODEL.onnx [--rounds R]]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "bench_train.h"
#include "model_session.h"
#include "npy.h"
#include "ort_session.h"

namespace edgefold::tools {
namespace {

constexpr char kUsage[] =
    "usage: edgefold bench MODEL.efb [--runs N] [--warmup N] [--profile | --train]\n"
    "                      [--isa auto|scalar|sse4.2|avx2+fma|avx512|neon]\n"
    "                      [--threads N [--fixed-split]] [-i IN.npy ...]\n"
    "                      [--ort MODEL.onnx [--rounds R] [--ort-lib PATH] [--ort-output F.npy]]\n"
    "\n"
    "Fills every input with uniform random values in [-1, 1] (fixed seed), runs --warmup\n"
    "untimed invocations (default 10), then times --runs invocations (default 100) and\n"
    "prints min/median/p90 latency. The last line is 'median_ms=<x>'.\n"
    "--profile also prints each op's share of the time (mean over the timed runs, slowest\n"
    "first), from a callback the runtime makes after every op.\n"
    "--train times one training step instead (a model compiled with --train: forward with\n"
    "batch statistics, loss, backward, SGD on what the model trains; random inputs and labels).\n"
    "--isa: a level (default: the best this CPU runs); avx2+vnni names the avx2+fma level,\n"
    "whose AVX-VNNI kernels run wherever the CPU has AVX-VNNI.\n"
    "--threads N: each run splits its ops over N threads or runs them on one, whichever the\n"
    "last runs timed faster (it prints how many split); --fixed-split: every run splits.\n"
    "-i IN.npy: input i from a float32 .npy (its first slice) instead of random values.\n"
    "--ort MODEL.onnx: the native peer. ONNX Runtime (its C API, loaded at run time from\n"
    "--ort-lib, else $EDGEFOLD_ORT_LIB, else libonnxruntime.so.1; CPU provider, all graph\n"
    "optimizations, --threads intra-op threads, one inter-op thread) runs MODEL.onnx in this\n"
    "process on the same input values, with the same warm-up and runs; the two alternate\n"
    "--rounds times (default 2), each keeping its best median. Prints per round both medians,\n"
    "then ort_median_ms=, ef_ort= (edgefold/ORT), the largest |difference| of output 0, and\n"
    "median_ms= last. --ort-output writes ORT's output 0 of the last run as .npy.\n";

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

// Sets every input to `values` (Invoke may overwrite an input's bytes: the planner reuses them).
bool SetInputs(ModelSession& session, const std::vector<std::vector<float>>& values,
               std::string* error) {
  Interpreter& interp = session.interpreter();
  for (size_t i = 0; i < values.size(); ++i) {
    const Status s = interp.input(i).dtype == DType::kInt8
                         ? interp.QuantizeInput(i, values[i].data(), values[i].size())
                         : interp.SetInput(i, values[i].data(), values[i].size());
    if (s != Status::kOk) return *error = session.Describe("SetInput", s), false;
  }
  return true;
}

// Fills every input, from `files` (one .npy per input, its first slice) or random values in
// [-1, 1]; `values` keeps what was set (the peer gets the same).
bool FillInputs(ModelSession& session, const std::vector<std::string>& files,
                std::vector<std::vector<float>>* values, std::string* error) {
  Interpreter& interp = session.interpreter();
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  if (!files.empty() && files.size() != interp.num_inputs())
    return *error = "the model has " + std::to_string(interp.num_inputs()) + " input(s), got " +
                    std::to_string(files.size()) + " -i file(s)",
           false;
  values->resize(interp.num_inputs());
  for (size_t i = 0; i < interp.num_inputs(); ++i) {
    std::vector<float>& data = (*values)[i];
    data.resize(interp.input(i).elems);
    if (files.empty()) {
      for (float& x : data) x = dist(rng);
    } else {
      NpyArray a;
      if (!ReadNpy(files[i], &a, error)) return false;
      if (a.dtype != NpyDType::kFloat32 || a.f32.size() < data.size())
        return *error = files[i] + ": want float32 data, at least the " +
                        std::to_string(data.size()) + " values of input '" + interp.input(i).name +
                        "'",
               false;
      std::copy(a.f32.begin(), a.f32.begin() + static_cast<std::ptrdiff_t>(data.size()),
                data.begin());
    }
  }
  return SetInputs(session, *values, error);
}

// Times Invoke; before each run (untimed) the inputs are set again to `inputs`, so every run
// computes on the same values.
bool TimeRuns(ModelSession& session, const std::vector<std::vector<float>>& inputs, int warmup,
              int runs, std::vector<double>* ms, std::string* error, OpProfiler* profiler) {
  Interpreter& interp = session.interpreter();
  for (int r = 0; r < warmup + runs; ++r) {
    if (!SetInputs(session, inputs, error)) return false;
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

// The native peer: ONNX Runtime on the ONNX model, fed the values edgefold's inputs got.
struct Peer {
  OrtSession ort;
  std::vector<std::vector<float>> inputs;  // ORT reads them in place
};

bool OpenPeer(const ParsedArgs& args, int threads, Interpreter& interp, Peer* peer,
              std::string* error) {
  const std::string library = FindOrtLibrary(args.Get("--ort-lib", ""), error);
  if (library.empty() || !peer->ort.Open(library, args.Get("--ort", ""), threads, error))
    return false;
  if (peer->ort.num_inputs() != interp.num_inputs())
    return *error = args.Get("--ort", "") + " has " + std::to_string(peer->ort.num_inputs()) +
                    " input(s), the .efb " + std::to_string(interp.num_inputs()),
           false;
  for (size_t i = 0; i < interp.num_inputs(); ++i)
    if (!peer->ort.SetInput(i, peer->inputs[i].data(), ViewShape(interp.input(i)), error))
      return false;
  return true;
}

bool TimePeerRuns(OrtSession& ort, int warmup, int runs, std::vector<double>* ms,
                  std::string* error) {
  for (int r = 0; r < warmup + runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = ort.Run(error);
    const auto t1 = std::chrono::steady_clock::now();
    if (!ok) return false;
    if (r >= warmup) ms->push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms->begin(), ms->end());
  return true;
}

// Largest |edgefold - ORT| over output 0 (edgefold's int8 output dequantized); writes ORT's
// output to `ort_npy` when not empty.
bool CompareOutputs(Interpreter& interp, const OrtSession& ort, const std::string& ort_npy,
                    double* max_abs, std::string* error) {
  std::vector<float> want;
  std::vector<int64_t> shape;
  if (!ort.Output(0, &want, &shape, error)) return false;
  if (!ort_npy.empty() && !WriteNpyFloat32(ort_npy, want.data(), want.size(), shape, error))
    return false;
  std::vector<float> got(interp.output(0).elems);
  if (got.size() != want.size())
    return *error = "output '" + std::string(interp.output(0).name) +
                    "': " + std::to_string(got.size()) + " values, ONNX Runtime's '" +
                    ort.output_name(0) + "' " + std::to_string(want.size()),
           false;
  if (interp.DequantizeOutput(0, got.data(), got.size()) != Status::kOk)
    return *error = "output 0: DequantizeOutput failed", false;
  *max_abs = 0;
  for (size_t i = 0; i < got.size(); ++i)
    *max_abs = std::max(*max_abs, std::fabs(static_cast<double>(got[i]) - want[i]));
  return true;
}

}  // namespace

namespace {

// The lines above the times: model, kernels, caches, runs, thread splits.
void PrintSetup(const std::string& path, ModelSession& session, int threads, int runs, int warmup,
                int rounds) {
  std::printf("model: %s\n", path.c_str());
  std::printf("kernels: %s, threads: %d, arena: %zu bytes\n",
              session.interpreter().kernel_isa_name(), threads, session.arena_bytes());
  const CacheInfo caches = HostCacheInfo();
  std::printf("caches: L1d %zu KiB, L2 %zu KiB per core (GEMM blocks: kc %zu, mc %zu)\n",
              caches.l1d_bytes / 1024, caches.l2_bytes / 1024, caches.gemm_kc, caches.gemm_mc);
  std::printf("runs: %d (after %d warmup)%s\n", runs, warmup,
              rounds > 1 ? (", best median of " + std::to_string(rounds) + " rounds").c_str() : "");
  if (threads > 1)  // Options::adapt_splits: the runs the last runs' times sent to one thread
    std::printf(
        "split over threads: %zu of %zu runs, warmup included (the rest timed faster on one "
        "thread)\n",
        session.interpreter().split_invocations(), session.interpreter().invocations());
}

// Each engine's best round (by median), and every round's two medians.
struct BenchTimes {
  std::vector<double> ms, ort_ms;
  std::vector<std::pair<double, double>> round_medians;
};

// The engines alternate: a slow spell of a shared host falls on both; each keeps its best.
// `ort` null: edgefold alone.
bool TimeAlternating(ModelSession& session, const std::vector<std::vector<float>>& inputs,
                     OrtSession* ort, int warmup, int runs, int rounds, OpProfiler* profiler,
                     BenchTimes* t, std::string* error) {
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> ef_round, ort_round;
    if (!TimeRuns(session, inputs, warmup, runs, &ef_round, error, profiler) ||
        (ort && !TimePeerRuns(*ort, warmup, runs, &ort_round, error)))
      return false;
    if (t->ms.empty() || Percentile(ef_round, 0.5) < Percentile(t->ms, 0.5)) t->ms = ef_round;
    if (!ort) continue;
    if (t->ort_ms.empty() || Percentile(ort_round, 0.5) < Percentile(t->ort_ms, 0.5))
      t->ort_ms = ort_round;
    t->round_medians.emplace_back(Percentile(ef_round, 0.5), Percentile(ort_round, 0.5));
  }
  return true;
}

void PrintPeer(const OrtSession& ort, const std::string& onnx_path, int threads,
               const BenchTimes& t, double max_abs) {
  std::printf(
      "peer: ONNX Runtime %s through its C API in this process (%s), %d intra-op "
      "thread(s)\n",
      ort.version(), onnx_path.c_str(), threads);
  for (size_t r = 0; r < t.round_medians.size(); ++r)
    std::printf("  round %zu: edgefold %.4f ms, ORT %.4f ms, edgefold/ORT %.3f\n", r + 1,
                t.round_medians[r].first, t.round_medians[r].second,
                t.round_medians[r].first / t.round_medians[r].second);
  std::printf("ort_min_ms=%.4f ort_median_ms=%.4f ort_p90_ms=%.4f\n", t.ort_ms.front(),
              Percentile(t.ort_ms, 0.5), Percentile(t.ort_ms, 0.9));
  std::printf("ef_ort=%.4f max_abs_diff=%.3g (output 0, edgefold against ORT)\n",
              Percentile(t.ms, 0.5) / Percentile(t.ort_ms, 0.5), max_abs);
}

// --runs, --warmup, --threads, --rounds: false with `error` on a bad value;
// --rounds defaults to 2 with --ort: the engines alternate.
bool ParseBenchCounts(const ParsedArgs& args, int* runs, int* warmup, int* threads, int* rounds,
                      std::string* error) {
  if (!ParseCount("--runs", args.Get("--runs", "100"), runs, error) ||
      !ParseCount("--warmup", args.Get("--warmup", "10"), warmup, error) ||
      !ParseCount("--threads", args.Get("--threads", "1"), threads, error) ||
      !ParseCount("--rounds", args.Get("--rounds", args.Has("--ort") ? "2" : "1"), rounds, error))
    return false;
  if (*runs == 0 || *threads == 0 || *rounds == 0) {
    *error = "options '--runs', '--threads' and '--rounds' must be at least 1";
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
  spec.value_flags = {"--runs", "--warmup", "--isa",     "--threads",   "--input",
                      "--ort",  "--rounds", "--ort-lib", "--ort-output"};
  spec.bool_flags = {"--profile", "--train", "--fixed-split"};
  spec.aliases = {{"-i", "--input"}};
  spec.min_positional = spec.max_positional = 1;
  ParsedArgs args;
  int exit_code = kExitOk;
  if (!ParseOrExit(argc, argv, spec, kUsage, &args, &exit_code)) return exit_code;
  int runs = 0, warmup = 0, threads = 1, rounds = 1;
  Isa isa = Isa::kAuto;
  std::string error;
  if (!ParseBenchCounts(args, &runs, &warmup, &threads, &rounds, &error)) {
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
  OpProfiler profiler;
  const bool profile = args.Has("--profile");
  const bool with_peer = args.Has("--ort");
  Peer peer;
  BenchTimes t;
  double max_abs = 0;
  bool ok = session.Open(args.positional[0], isa, &error, profile ? &OpProfiler::OnOpEnd : nullptr,
                         &profiler) &&
            FillInputs(session, args.All("--input"), &peer.inputs, &error) &&
            (!with_peer || OpenPeer(args, threads, session.interpreter(), &peer, &error)) &&
            TimeAlternating(session, peer.inputs, with_peer ? &peer.ort : nullptr, warmup, runs,
                            rounds, profile ? &profiler : nullptr, &t, &error);
  if (ok && with_peer)
    ok = CompareOutputs(session.interpreter(), peer.ort, args.Get("--ort-output", ""), &max_abs,
                        &error);
  if (!ok) {
    std::fprintf(stderr, "edgefold bench: %s\n", error.c_str());
    return kExitFailure;
  }
  PrintSetup(args.positional[0], session, threads, runs, warmup, rounds);
  const std::vector<double>& ms = t.ms;
  std::printf("min_ms=%.4f median_ms=%.4f p90_ms=%.4f\n", ms.front(), Percentile(ms, 0.5),
              Percentile(ms, 0.9));
  if (profile) profiler.Print(session.interpreter(), runs * rounds);
  if (with_peer) PrintPeer(peer.ort, args.Get("--ort", ""), threads, t, max_abs);
  std::printf("median_ms=%.4f\n", Percentile(ms, 0.5));
  return kExitOk;
}

}  // namespace edgefold::tools
