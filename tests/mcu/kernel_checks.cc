// Kernel checks without GoogleTest: the reference kernels against hand-computed values, and
// every kernel table this build and CPU have (only "scalar" on Cortex-M) against the reference
// at sizes below, at and above a vector width (1, 3, 4, 5, 13, 17·12).
#include <cmath>
#include <cstdio>
#include <initializer_list>

#include "edgefold/isa.h"
#include "harness.h"
#include "kernels/conv_kernel_table.h"
#include "kernels/kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::mcu_test {
namespace {

using namespace edgefold::kernels;

constexpr size_t kMax = 8 * 81;  // 8 planes of up to 9 × 9
float g_a[kMax], g_b[kMax], g_want[kMax], g_got[kMax], g_c[kMax];
constexpr size_t kSizes[] = {1, 3, 4, 5, 13, kMax};

void HandChecks(Harness& h) {
  // [1 2; 3 4]·[5 6; 7 8] + bias(1, 2 per column) = [20 24; 44 52]
  const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8}, bias[] = {1, 2}, want[] = {20, 24, 44, 52};
  float c[4];
  GemmParams p;
  p.m = p.n = p.k = p.lda = p.ldb = p.ldc = 2;
  p.bias = bias;
  ref::Gemm(p, a, b, c);
  h.Close(want, c, 4, 0, 0, "ref::Gemm 2x2 by hand");
  // softmax([0, ln 3]) = [1/4, 3/4]
  const float x[] = {0.0f, std::log(3.0f)}, sm_want[] = {0.25f, 0.75f};
  float y[2];
  ref::Softmax(x, y, 1, 2, 1);
  h.Close(sm_want, y, 2, 1e-6f, 1e-6f, "ref::Softmax by hand");
  const float r_in[] = {-2, 0.5f}, r_want[] = {0, 0.5f};
  Activation relu;
  relu.kind = ActKind::kRelu;
  ref::ActivationKernel(r_in, y, 2, relu);
  h.Close(r_want, y, 2, 0, 0, "ref::ActivationKernel relu by hand");
}

void ElementwiseChecks(Harness& h, const KernelTable& t) {
  Activation act;
  act.kind = ActKind::kHardSwish;
  for (size_t n : kSizes) {
    FillRandom(g_a, n, 11 + n, -4, 4);
    FillRandom(g_b, n, 12 + n, 0.5f, 2);
    ref::ActivationKernel(g_a, g_want, n, act);
    t.activation(g_a, g_got, n, act);
    h.Close(g_want, g_got, n, 1e-6f, 1e-5f, "activation hardswish vs reference");
    Activation silu;
    silu.kind = ActKind::kSiLU;
    ref::ActivationKernel(g_a, g_want, n, silu);
    t.activation(g_a, g_got, n, silu);
    h.Close(g_want, g_got, n, 1e-6f, 1e-5f, "activation silu vs reference");
    ref::Binary(BinaryKind::kDiv, BroadcastMode::kElementwise, g_a, g_b, g_want, n, act);
    t.binary(BinaryKind::kDiv, BroadcastMode::kElementwise, g_a, g_b, g_got, n, act);
    h.Close(g_want, g_got, n, 1e-6f, 1e-5f, "binary div vs reference");
    ref::ChannelAffine(g_a, g_b, g_b, g_want, 1, n, act);
    t.channel_affine(g_a, g_b, g_b, g_got, 1, n, act);
    h.Close(g_want, g_got, n, 1e-6f, 1e-5f, "channel_affine vs reference");
    ref::Softmax(g_a, g_want, 1, n, 1);
    t.softmax(g_a, g_got, 1, n, 1);
    h.Close(g_want, g_got, n, 1e-6f, 1e-5f, "softmax vs reference");
    ref::GlobalPool(PoolKind::kAverage, g_a, g_want, 1, n);
    t.global_pool(PoolKind::kAverage, g_a, g_got, 1, n);
    h.Close(g_want, g_got, 1, 1e-5f, 1e-5f, "global average pool vs reference");
  }
}

// The scalar level's GEMM and depthwise convolution (scalar::GemmTiled, Conv2dDepthwiseClipped)
// sum in the reference's order, and the compiler contracts both alike: same bits. SIMD tables
// differ by FMA rounding.
float TableTolerance(const KernelTable& t) { return t.isa == Isa::kScalar ? 0.0f : 1e-5f; }

// C[m×n] = act((accumulate ? C : 0) + A[m×k]·B[k×n] + bias): 4×4 tiles and their row and column
// tails, k = 0, bias per row or per column, and B's rows through b_row_offsets (phase planes).
void GemmChecks(Harness& h, const KernelTable& t) {
  struct Case {
    size_t m, n, k;
    bool per_row, accumulate, offsets;
    ActKind act;
  };
  const Case cases[] = {{5, 13, 7, false, false, false, ActKind::kRelu},
                        {8, 9, 16, true, true, false, ActKind::kNone},
                        {4, 4, 1, true, false, false, ActKind::kClip},
                        {1, 6, 3, false, true, false, ActKind::kNone},
                        {6, 1, 5, true, false, false, ActKind::kRelu},
                        {3, 5, 0, true, true, false, ActKind::kNone},
                        {7, 10, 6, true, false, true, ActKind::kRelu}};
  for (const Case& gc : cases) {
    GemmParams p;
    p.m = gc.m, p.n = gc.n, p.k = gc.k, p.lda = gc.k + 1, p.ldb = gc.n + 2, p.ldc = gc.n + 1;
    p.bias = g_c, p.bias_per_row = gc.per_row, p.accumulate = gc.accumulate;
    p.act.kind = gc.act, p.act.alpha = -0.25f, p.act.beta = 0.5f;
    // Offsets: B's row q starts at b + 3·(k − 1 − q) + q % 2 (rows in reverse, shifted), ldb unused.
    uint32_t offsets[16];
    for (size_t q = 0; q < gc.k; ++q)
      offsets[q] = static_cast<uint32_t>(3 * (gc.k - 1 - q) + q % 2);
    if (gc.offsets) p.b_row_offsets = offsets;
    FillRandom(g_a, p.m * p.lda, 21 + gc.m);
    FillRandom(g_b, p.k * p.ldb, 22 + gc.n);
    FillRandom(g_c, 16, 23 + gc.k);
    const size_t c_elems = p.m * p.ldc;
    FillRandom(g_want, c_elems, 24);  // the old C (accumulate) and its padding column
    for (size_t i = 0; i < c_elems; ++i) g_got[i] = g_want[i];
    ref::Gemm(p, g_a, g_b, g_want);
    t.gemm(p, g_a, g_b, g_got);
    h.Close(g_want, g_got, c_elems, TableTolerance(t), TableTolerance(t), "gemm vs reference");
  }
}

void WindowChecks(Harness& h, const KernelTable& t, const ConvKernelTable& conv) {
  // Depthwise over 3 and 8 channels of 7×9: 3×3 stride 1 and 2 (interior block and clipped
  // borders),
  // 5×5, dilation 2, a 1×1, and 7×7 windows as tall as the image (every one clipped).
  struct Case {
    size_t k, stride, dilation, pad;
    ActKind act;
  };
  const Case cases[] = {{3, 1, 1, 1, ActKind::kNone}, {3, 2, 1, 1, ActKind::kRelu},
                        {5, 1, 1, 2, ActKind::kClip}, {3, 1, 2, 2, ActKind::kRelu},
                        {1, 2, 1, 0, ActKind::kNone}, {7, 1, 1, 3, ActKind::kRelu},
                        {3, 1, 1, 0, ActKind::kNone}};
  for (size_t channels : {size_t{3}, size_t{8}})  // 8: Helium's four-channel groups
    for (const Case& dc : cases) {
      Conv2dShape s;
      s.in_c = s.out_c = s.group = channels, s.in_h = 7, s.in_w = 9;
      s.kh = s.kw = dc.k, s.stride_h = s.stride_w = dc.stride,
      s.dilation_h = s.dilation_w = dc.dilation;
      s.pad_top = s.pad_left = dc.pad;
      const size_t span = dc.dilation * (dc.k - 1) + 1;
      s.out_h = (s.in_h + 2 * dc.pad - span) / dc.stride + 1,
      s.out_w = (s.in_w + 2 * dc.pad - span) / dc.stride + 1;
      Activation act;
      act.kind = dc.act, act.alpha = -0.5f, act.beta = 0.75f;
      FillRandom(g_a, channels * 63, 31);
      FillRandom(g_b, channels * dc.k * dc.k, 32 + dc.k);
      FillRandom(g_c, channels, 33);
      const size_t n = channels * s.out_h * s.out_w;
      ref::Conv2dDepthwise(s, g_a, g_b, g_c, act, g_want);
      conv.conv2d_depthwise(s, g_a, g_b, g_c, act, g_got);
      h.Close(g_want, g_got, n, TableTolerance(t), TableTolerance(t), "depthwise vs reference");
    }
  Pool2dParams p;  // max pool 2×2 stride 2 over 3 planes of 7×9 → 3×4
  p.in_h = 7, p.in_w = 9, p.out_h = 3, p.out_w = 4, p.kh = p.kw = 2, p.stride_h = p.stride_w = 2;
  ref::Pool2d(p, g_a, g_want, 3);
  t.pool2d(p, g_a, g_got, 3);
  h.Close(g_want, g_got, 36, 0, 0, "max pool 2x2 vs reference");
  // Average 3×3 stride 2 with padding (clipped windows, both counts) over 5 planes of 7×5 (a
  // group of four and one), and a max pool over the same.
  FillRandom(g_a, 5 * 35, 34);
  Pool2dParams q;
  q.in_h = 7, q.in_w = 5, q.out_h = 4, q.out_w = 3, q.kh = q.kw = 3, q.stride_h = q.stride_w = 2;
  q.pad_top = q.pad_left = 1;
  for (PoolKind kind : {PoolKind::kAverage, PoolKind::kMax})
    for (bool include_pad : {false, true}) {
      q.kind = kind, q.count_include_pad = include_pad;
      ref::Pool2d(q, g_a, g_want, 5);
      t.pool2d(q, g_a, g_got, 5);
      // The scalar level (on the M55 Helium's pooling) gives the reference's bits; SIMD
      // levels may divide differently.
      const float tol = kind == PoolKind::kMax ? 0.0f : TableTolerance(t);
      h.Close(g_want, g_got, 5 * 12, tol, tol, "padded 3x3 pool vs reference");
    }
}

}  // namespace

void RunKernelChecks(Harness& h) {
  HandChecks(h);
  const Isa levels[] = {Isa::kScalar, Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon};
  int tables = 0;
  for (Isa isa : levels) {
    const KernelTable* t = TableFor<KernelTable>(isa);
    if (t == nullptr || !IsaAvailable(isa)) continue;
    std::printf("kernel table: %s\n", t->name);
    ++tables;
    ElementwiseChecks(h, *t);
    GemmChecks(h, *t);
    WindowChecks(h, *t, *TableFor<ConvKernelTable>(isa));
  }
  h.Check(tables > 0 && TableFor<KernelTable>(Isa::kScalar) != nullptr, "the scalar table exists");
  h.Check(&SelectTable<KernelTable>(Isa::kAuto) == TableFor<KernelTable>(DetectBestIsa()),
          "auto selects the best level");
}

}  // namespace edgefold::mcu_test
