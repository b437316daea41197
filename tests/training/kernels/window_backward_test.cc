// Depthwise-conv and pool backward of every table against central finite differences of the
// forward reference kernels (ref::Conv2dDepthwise, ref::Pool2d) with L = Σ r·y. Both forwards
// are linear in the perturbed value (max pool piecewise, with inputs on a 0.25 grid so a step
// of 0.05 never changes a window's maximum), so FD is exact up to float rounding.
#include <algorithm>
#include <numeric>

#include "kernels/reference.h"
#include "kernels/train_reference.h"
#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

constexpr float kStep = 0.05f;

template <class Forward>
double Loss(Forward forward, const std::vector<float>& r, size_t out_elems) {
  std::vector<float> y(out_elems);
  forward(y.data());
  double l = 0.0;
  for (size_t i = 0; i < out_elems; ++i) l += double(r[i]) * y[i];
  return l;
}

// ∂L/∂v by central differences, v perturbed in place.
template <class Forward>
std::vector<float> FiniteDiff(Forward forward, std::vector<float>* v, const std::vector<float>& r,
                              size_t out_elems) {
  std::vector<float> g(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    const float keep = (*v)[i];
    (*v)[i] = keep + kStep;
    const double up = Loss(forward, r, out_elems);
    (*v)[i] = keep - kStep;
    const double down = Loss(forward, r, out_elems);
    (*v)[i] = keep;
    g[i] = static_cast<float>((up - down) / (2 * kStep));
  }
  return g;
}

// Distinct values k·0.25 in a random order.
std::vector<float> GridValues(size_t n, unsigned seed) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  for (float& x : v) x = (x - n / 2.0f) * 0.25f;
  return v;
}

class WindowBackwardTest : public TrainKernelTest {};

TEST_P(WindowBackwardTest, DepthwiseMatchesFiniteDifferences) {
  for (size_t stride : {1, 2}) {
    Conv2dShape s;
    s.in_c = s.out_c = s.group = 3, s.in_h = 7, s.in_w = 6, s.kh = s.kw = 3;
    s.stride_h = s.stride_w = stride, s.pad_top = s.pad_left = 1;
    s.dilation_h = stride, s.dilation_w = 1;
    s.out_h = (s.in_h + 2 - s.dilation_h * 2 - 1) / stride + 1,
    s.out_w = (s.in_w + 2 - 2 - 1) / stride + 1;
    const size_t out_elems = s.out_c * s.out_h * s.out_w;
    std::vector<float> x = RandomVector(s.in_c * s.in_h * s.in_w, -1, 1, 41),
                       w = RandomVector(s.in_c * 9, -1, 1, 42);
    const std::vector<float> r = RandomVector(out_elems, -1, 1, 43);
    auto forward = [&](float* y) {
      ref::Conv2dDepthwise(s, x.data(), w.data(), nullptr, Activation{}, y);
    };
    const std::vector<float> dx0 = RandomVector(x.size(), -1, 1, 44),
                             dw0 = RandomVector(w.size(), -1, 1, 45);
    std::vector<float> dx = dx0, dw = dw0, dx_only = dx0;
    table().conv2d_depthwise_backward(s, x.data(), w.data(), r.data(), dx.data(), dw.data());
    table().conv2d_depthwise_backward(s, x.data(), w.data(), r.data(), dx_only.data(), nullptr);
    for (size_t i = 0; i < dx.size(); ++i) dx[i] -= dx0[i], dx_only[i] -= dx0[i];  // accumulated
    for (size_t i = 0; i < dw.size(); ++i) dw[i] -= dw0[i];
    EXPECT_TRUE(AllClose(FiniteDiff(forward, &x, r, out_elems), dx, 2e-4f, 1e-4f))
        << "dx stride " << stride;
    EXPECT_TRUE(AllClose(FiniteDiff(forward, &w, r, out_elems), dw, 2e-4f, 1e-4f))
        << "dw stride " << stride;
    EXPECT_EQ(dx, dx_only);
  }
}

// The table's depthwise backward against the reference at row widths around every vector
// width (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, a prime, a long row), with padding, dilation, stride.
TEST_P(WindowBackwardTest, DepthwiseMatchesTheReferenceAtAwkwardWidths) {
  for (size_t width : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 61})
    for (size_t stride : {1, 2})
      for (size_t dilation : {1, 2}) {
        Conv2dShape s;
        s.in_c = s.out_c = s.group = 5, s.in_h = 6, s.in_w = width, s.kh = s.kw = 3;
        s.stride_h = s.stride_w = stride, s.pad_top = s.pad_left = dilation;
        s.dilation_h = s.dilation_w = dilation;
        s.out_h = (s.in_h + 2 * dilation - 2 * dilation - 1) / stride + 1;
        s.out_w = (s.in_w + 2 * dilation - 2 * dilation - 1) / stride + 1;
        const std::vector<float> x = RandomVector(s.in_c * s.in_h * s.in_w, -1, 1, 51);
        const std::vector<float> w = RandomVector(s.in_c * 9, -1, 1, 52);
        const std::vector<float> dy = RandomVector(s.out_c * s.out_h * s.out_w, -1, 1, 53);
        std::vector<float> dx_ref = RandomVector(x.size(), -1, 1, 54),
                           dw_ref = RandomVector(w.size(), -1, 1, 55);
        std::vector<float> dx = dx_ref, dw = dw_ref, dx_only = dx_ref;
        ref::Conv2dDepthwiseBackward(s, x.data(), w.data(), dy.data(), dx_ref.data(),
                                     dw_ref.data());
        table().conv2d_depthwise_backward(s, x.data(), w.data(), dy.data(), dx.data(), dw.data());
        table().conv2d_depthwise_backward(s, x.data(), w.data(), dy.data(), dx_only.data(),
                                          nullptr);
        EXPECT_TRUE(AllClose(dx_ref, dx, 1e-5f, 1e-5f))
            << "dx width " << width << " stride " << stride << " dilation " << dilation;
        EXPECT_TRUE(AllClose(dw_ref, dw, 1e-5f, 1e-5f))
            << "dw width " << width << " stride " << stride << " dilation " << dilation;
        EXPECT_EQ(dx, dx_only);
      }
}

TEST_P(WindowBackwardTest, PoolMatchesFiniteDifferences) {
  for (PoolKind kind : {PoolKind::kMax, PoolKind::kAverage})
    for (bool include_pad : {false, true})
      for (size_t stride : {1, 2}) {
        Pool2dParams p;
        p.kind = kind, p.count_include_pad = include_pad, p.in_h = 7, p.in_w = 9, p.kh = 3,
        p.kw = 2;
        p.stride_h = p.stride_w = stride, p.pad_top = 1, p.pad_left = 1, p.dilation_w = stride;
        p.out_h = (p.in_h + 2 - 2 - 1) / stride + 1,
        p.out_w = (p.in_w + 2 - stride - 1) / stride + 1;
        const size_t planes = 2, out_elems = planes * p.out_h * p.out_w;
        std::vector<float> x = GridValues(planes * p.in_h * p.in_w, 46);
        const std::vector<float> r = RandomVector(out_elems, -1, 1, 47),
                                 dx0 = RandomVector(x.size(), -1, 1, 48);
        auto forward = [&](float* y) { ref::Pool2d(p, x.data(), y, planes); };
        std::vector<float> dx = dx0;
        table().pool2d_backward(p, x.data(), r.data(), dx.data(), planes);
        for (size_t i = 0; i < dx.size(); ++i) dx[i] -= dx0[i];
        EXPECT_TRUE(AllClose(FiniteDiff(forward, &x, r, out_elems), dx, 2e-4f, 1e-4f))
            << (kind == PoolKind::kMax ? "max" : "avg") << " include_pad " << include_pad
            << " stride " << stride;
      }
}

TEST_P(WindowBackwardTest, MaxPoolTiesGoToTheFirstMaximum) {
  Pool2dParams p;
  p.kind = PoolKind::kMax, p.in_h = 1, p.in_w = 3, p.kh = 1, p.kw = 3, p.out_h = 1, p.out_w = 1;
  const std::vector<float> x = {1.0f, 2.0f, 2.0f}, dy = {5.0f};
  std::vector<float> dx(3, 0.0f);
  table().pool2d_backward(p, x.data(), dy.data(), dx.data(), 1);
  EXPECT_EQ(dx, (std::vector<float>{0.0f, 5.0f, 0.0f}));
}

EDGEFOLD_INSTANTIATE_ISAS(WindowBackwardTest, AllTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
