// Kernel checks without GoogleTest: the reference kernels against hand-computed values, and
// every kernel table this build and CPU have (only "scalar" on Cortex-M) against the reference
// at sizes below, at and above a vector width (1, 3, 4, 5, 13, 17·12).
#include <cmath>
#include <cstdio>

#include "edgefold/isa.h"
#include "harness.h"
#include "kernels/kernel_table.h"
#include "kernels/reference.h"

namespace edgefold::mcu_test {
namespace {

using namespace edgefold::kernels;

constexpr size_t kMax = 17 * 12;
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

void GemmCheck(Harness& h, const KernelTable& t) {
  GemmParams p;  // C[5×13] = relu(A[5×7]·B[7×13] + bias[13])
  p.m = 5, p.n = 13, p.k = 7, p.lda = 7, p.ldb = 13, p.ldc = 13;
  p.bias = g_c;
  p.act.kind = ActKind::kRelu;
  FillRandom(g_a, 35, 21);
  FillRandom(g_b, 91, 22);
  FillRandom(g_c, 13, 23);
  ref::Gemm(p, g_a, g_b, g_want);
  t.gemm(p, g_a, g_b, g_got);
  h.Close(g_want, g_got, 65, 1e-5f, 1e-5f, "gemm 5x13x7 vs reference");
}

void WindowChecks(Harness& h, const KernelTable& t) {
  Conv2dShape s;  // depthwise 3×3, stride 1, pad 1 over 3 channels of 7×9
  s.in_c = s.out_c = s.group = 3, s.in_h = s.out_h = 7, s.in_w = s.out_w = 9;
  s.kh = s.kw = 3, s.pad_top = s.pad_left = 1;
  FillRandom(g_a, 3 * 63, 31);
  FillRandom(g_b, 27, 32);
  FillRandom(g_c, 3, 33);
  ref::Conv2dDepthwise(s, g_a, g_b, g_c, Activation(), g_want);
  t.conv2d_depthwise(s, g_a, g_b, g_c, Activation(), g_got);
  h.Close(g_want, g_got, 3 * 63, 1e-5f, 1e-5f, "depthwise 3x3 vs reference");
  Pool2dParams p;  // max pool 2×2 stride 2 over 3 planes of 7×9 → 3×4
  p.in_h = 7, p.in_w = 9, p.out_h = 3, p.out_w = 4, p.kh = p.kw = 2, p.stride_h = p.stride_w = 2;
  ref::Pool2d(p, g_a, g_want, 3);
  t.pool2d(p, g_a, g_got, 3);
  h.Close(g_want, g_got, 36, 0, 0, "max pool 2x2 vs reference");
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
    GemmCheck(h, *t);
    WindowChecks(h, *t);
  }
  h.Check(tables > 0 && TableFor<KernelTable>(Isa::kScalar) != nullptr, "the scalar table exists");
  h.Check(&SelectTable<KernelTable>(Isa::kAuto) == TableFor<KernelTable>(DetectBestIsa()), "auto selects the best level");
}

}  // namespace edgefold::mcu_test
