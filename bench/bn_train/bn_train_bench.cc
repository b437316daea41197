// BatchNorm training forward + backward kernel benchmark (the selected TrainKernelTable, one
// thread), plus this machine's STREAM-like bandwidth. One line per shape:
//   bn shape=NxCxHxW isa=… fwd_ms=… bwd_ms=… total_ms=… gbps_passes=… gbps_compulsory=…
// Bytes per element (4-byte floats):
//   passes      : forward reads x in each of its 3 passes and writes y and xhat (5·4 = 20);
//                 backward reads dy and xhat in both passes and writes dx (5·4 = 20); 40 total.
//   compulsory  : x read once, y and xhat written (12); dy and xhat read, dx written (12); 24.
// Times are the best (minimum) of `reps` runs after one warm-up: the machine is shared, and
// the minimum is the least disturbed run. Usage: bn_train_bench [reps]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/train_kernel_table.h"
#include "stream.h"

namespace {

using edgefold::bench::SecondsSince;

struct Shape {
  size_t n, c, h, w;
};

float* AlignedFloats(size_t count) {
  const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
  return static_cast<float*>(std::aligned_alloc(64, bytes));
}

double Best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

void RunShape(const edgefold::kernels::TrainKernelTable& t, const Shape& s, int reps) {
  const size_t spatial = s.h * s.w, elems = s.n * s.c * spatial;
  float *x = AlignedFloats(elems), *y = AlignedFloats(elems), *xhat = AlignedFloats(elems);
  float *dy = AlignedFloats(elems), *dx = AlignedFloats(elems);
  std::vector<float> gamma(s.c, 1.1f), beta(s.c, 0.1f), mean(s.c), var(s.c), inv_std(s.c), dg(s.c),
      db(s.c);
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.5f, 2.0f);
  for (size_t i = 0; i < elems; ++i) x[i] = normal(gen), dy[i] = normal(gen);
  std::vector<double> fwd, bwd;
  for (int r = 0; r <= reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    t.batchnorm_train_forward(x, gamma.data(), beta.data(), 1e-5f, y, xhat, mean.data(), var.data(),
                              inv_std.data(), s.n, s.c, spatial);
    const double f = SecondsSince(t0);
    t0 = std::chrono::steady_clock::now();
    t.batchnorm_backward(dy, xhat, gamma.data(), inv_std.data(), dx, dg.data(), db.data(), s.n, s.c,
                         spatial);
    const double b = SecondsSince(t0);
    if (r > 0) fwd.push_back(f), bwd.push_back(b);
  }
  const double f = Best(fwd), b = Best(bwd), total = f + b;
  const double bytes = 4.0 * static_cast<double>(elems);
  std::printf(
      "bn shape=%zux%zux%zux%zu isa=%s fwd_ms=%.3f bwd_ms=%.3f total_ms=%.3f gbps_passes=%.1f "
      "gbps_compulsory=%.1f check=%.3g\n",
      s.n, s.c, s.h, s.w, t.name, f * 1e3, b * 1e3, total * 1e3, 10 * bytes / total / 1e9,
      6 * bytes / total / 1e9, static_cast<double>(dx[elems / 3] + y[elems / 2]));
  std::free(x), std::free(y), std::free(xhat), std::free(dy), std::free(dx);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  const auto stream = edgefold::bench::MeasureStream();
  std::printf("stream copy_gbps=%.1f triad_gbps=%.1f copy_nt_gbps=%.1f\n", stream.copy_gbps,
              stream.triad_gbps, stream.copy_nt_gbps);
  const auto& table =
      edgefold::kernels::SelectTable<edgefold::kernels::TrainKernelTable>(edgefold::Isa::kAuto);
  for (const Shape& s :
       {Shape{32, 64, 56, 56}, Shape{8, 64, 56, 56}, Shape{32, 128, 28, 28}, Shape{1, 32, 16, 16}})
    RunShape(table, s, s.n * s.c * s.h * s.w < 100000 ? reps * 50 : reps);
  return 0;
}
