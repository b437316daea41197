// GEMM roofline: achieved GFLOP/s of the selected kernel table's GEMM (one thread) against
// this core's measured peak FMA rate.
//
// Peak: a register-only loop of independent FMAs on the widest vector this binary's table
// uses (peak_fma.cc, compiled with that ISA's flags) — flops/s = FMAs/s · lanes · 2. Nothing
// is assumed about the clock or the number of FMA pipes: the loop measures both.
// Prints one line per shape: gemm m= n= k= ms= gflops= pct_peak=, and one line
//   peak isa=<name> gflops=<x> fma_per_cycle_equiv=... ghz_est=...
// Usage: edgefold_gemm_bench [reps [m n k ...]]   (shapes given: only those)
// EDGEFOLD_GEMM_KM=1: each shape is also run as a pointwise conv with transposed weights
// (the table's conv_km: m output channels in the lanes, n pixels, k input channels; what the
// compiler plans for pointwise convs on small planes) and printed as km_ms= after it.
// EDGEFOLD_GEMM_ACT=none|silu|sigmoid|hardswish: the activation stored with C (default relu).
// EDGEFOLD_GEMM_COLD=1: before each timed call, 64 MiB are written (evicting every cache level)
// and then B and C are touched again: A (the weights; Wᵀ for km_ms) comes from memory, B (the
// input the previous op just wrote) and C from cache, as for a conv inside a network.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"

double PeakFmaGflops(size_t* lanes);  // peak_fma.cc

namespace {

using Clock = std::chrono::steady_clock;

// Evicts the caches, then brings b and c back into them (EDGEFOLD_GEMM_COLD).
void ColdWeights(const std::vector<float>& b, std::vector<float>& c) {
  static std::vector<char> junk(size_t{64} << 20);
  for (size_t i = 0; i < junk.size(); i += 64) ++junk[i];
  volatile float sum = 0.0f;
  for (float v : b) sum = sum + v;
  std::fill(c.begin(), c.end(), 0.0f);
}

// The activation fused into the GEMM's store: Relu, or EDGEFOLD_GEMM_ACT=none|silu|sigmoid|
// hardswish (the expansions of EfficientNet and MobileNetV3 store SiLU and HardSwish).
edgefold::kernels::ActKind GemmBenchActivation() {
  using edgefold::kernels::ActKind;
  const char* env = std::getenv("EDGEFOLD_GEMM_ACT");
  const std::string name = env != nullptr ? env : "relu";
  if (name == "none") return ActKind::kNone;
  if (name == "silu") return ActKind::kSiLU;
  if (name == "sigmoid") return ActKind::kSigmoid;
  if (name == "hardswish") return ActKind::kHardSwish;
  return ActKind::kRelu;
}

double TimeGemmMs(const edgefold::kernels::KernelTable& t, size_t m, size_t n, size_t k, int reps) {
  const char* cold_env = std::getenv("EDGEFOLD_GEMM_COLD");
  const bool cold = cold_env != nullptr && cold_env[0] == '1';
  std::vector<float> a(m * k), b(k * n), c(m * n), bias(std::max(m, n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>((i * 104729) % 1000) * 1e-3f - 0.5f;
  for (size_t i = 0; i < m; ++i) bias[i] = 0.01f * static_cast<float>(i % 7);
  edgefold::kernels::GemmParams p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = k;
  p.ldb = n;
  p.ldc = n;
  p.bias = bias.data();
  p.bias_per_row = m > 1;  // m = 1: a fully connected layer's bias per column
  p.act.kind = GemmBenchActivation();
  t.gemm(p, a.data(), b.data(), c.data());  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    if (cold) ColdWeights(b, c);
    const auto t0 = Clock::now();
    t.gemm(p, a.data(), b.data(), c.data());
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The same product as a pointwise conv with Wᵀ (ConvKmParams): y[m][n] from wt[k][m], x[k][n].
double TimeConvKmMs(const edgefold::kernels::KernelTable& t, size_t m, size_t n, size_t k,
                    int reps) {
  std::vector<float> wt(k * m), x(k * n), y(m * n), bias(m);
  for (size_t i = 0; i < wt.size(); ++i)
    wt[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 104729) % 1000) * 1e-3f - 0.5f;
  for (size_t i = 0; i < m; ++i) bias[i] = 0.01f * static_cast<float>(i % 7);
  edgefold::kernels::ConvKmParams p;
  p.in_c = k, p.out_c = m, p.x_h = p.out_h = 1, p.x_w = p.out_w = n;
  p.o_begin = 0, p.o_end = m;
  p.bias = bias.data();
  p.act.kind = edgefold::kernels::ActKind::kRelu;
  t.conv_km(p, wt.data(), x.data(), y.data());  // warm-up
  const char* cold_env = std::getenv("EDGEFOLD_GEMM_COLD");
  const bool cold = cold_env != nullptr && cold_env[0] == '1';
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    if (cold) ColdWeights(x, y);
    const auto t0 = Clock::now();
    t.conv_km(p, wt.data(), x.data(), y.data());
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
  const auto& t =
      edgefold::kernels::SelectTable<edgefold::kernels::KernelTable>(edgefold::Isa::kAuto);
  size_t lanes = 0;
  const double peak = PeakFmaGflops(&lanes);
  std::printf("peak isa=%s lanes=%zu gflops=%.1f\n", t.name, lanes, peak);
  // Square sizes, then conv-shaped ones (M = out_c, K = in_c·kh·kw, N = out_h·out_w).
  std::vector<std::array<size_t, 3>> shapes = {
      {256, 256, 256},  {512, 512, 512}, {1024, 1024, 1024}, {64, 3136, 576}, {128, 784, 1152},
      {256, 196, 2304}, {512, 49, 4608}, {96, 3136, 24},     {1000, 1, 1280}, {1, 1000, 1280}};
  if (argc > 4) shapes.clear();
  for (int i = 2; i + 2 < argc; i += 3)
    shapes.push_back({std::strtoull(argv[i], nullptr, 10), std::strtoull(argv[i + 1], nullptr, 10),
                      std::strtoull(argv[i + 2], nullptr, 10)});
  for (const auto& s : shapes) {
    const double ms = TimeGemmMs(t, s[0], s[1], s[2], reps);
    const double gflops = 2.0 * static_cast<double>(s[0] * s[1] * s[2]) / (ms * 1e6);
    std::printf("gemm m=%zu n=%zu k=%zu ms=%.4f gflops=%.1f pct_peak=%.0f", s[0], s[1], s[2], ms,
                gflops, 100.0 * gflops / peak);
    const char* km = std::getenv("EDGEFOLD_GEMM_KM");
    if (km != nullptr && km[0] == '1')
      std::printf(" km_ms=%.4f", TimeConvKmMs(t, s[0], s[1], s[2], reps));
    std::printf("\n");
  }
  return 0;
}
