// col2im is the adjoint of im2col: ⟨im2col(x), col⟩ = ⟨x, col2im(col)⟩ on random data, over
// strides, dilations, paddings and groups; and it accumulates into x_group.
#include "kernels/reference.h"
#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

Conv2dShape Shape(size_t in_c, size_t in_h, size_t in_w, size_t k, size_t stride, size_t dil,
                  size_t pad, size_t group) {
  Conv2dShape s;
  s.in_c = in_c, s.in_h = in_h, s.in_w = in_w, s.kh = k, s.kw = k;
  s.stride_h = s.stride_w = stride, s.dilation_h = s.dilation_w = dil, s.pad_top = s.pad_left = pad;
  s.group = group, s.out_c = in_c;
  s.out_h = (in_h + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  s.out_w = (in_w + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  return s;
}

class Col2imTest : public TrainKernelTest {};

TEST_P(Col2imTest, IsTheAdjointOfIm2col) {
  for (const Conv2dShape& s : {Shape(3, 7, 9, 3, 1, 1, 1, 1), Shape(4, 8, 5, 3, 2, 1, 1, 2),
                               Shape(2, 11, 13, 3, 2, 2, 2, 1), Shape(1, 1, 1, 1, 1, 1, 0, 1),
                               Shape(5, 6, 6, 5, 3, 1, 2, 5), Shape(2, 5, 17, 2, 1, 3, 0, 1)}) {
    const size_t ch = s.in_c / s.group, x_elems = ch * s.in_h * s.in_w;
    const size_t col_elems = ch * s.kh * s.kw * s.out_h * s.out_w;
    const std::vector<float> x = RandomVector(x_elems, -1, 1, 31),
                             col = RandomVector(col_elems, -1, 1, 32);
    std::vector<float> unfolded(col_elems), folded(x_elems, 0.0f);
    ref::Im2col(s, x.data(), unfolded.data());
    table().col2im(s, col.data(), folded.data());
    double lhs = 0.0, rhs = 0.0, scale = 0.0;
    for (size_t i = 0; i < col_elems; ++i)
      lhs += double(unfolded[i]) * col[i], scale += std::fabs(unfolded[i] * col[i]);
    for (size_t i = 0; i < x_elems; ++i) rhs += double(x[i]) * folded[i];
    EXPECT_NEAR(lhs, rhs, 1e-5 * (scale + 1))
        << "in " << s.in_h << "x" << s.in_w << " k" << s.kh << " s" << s.stride_h;
    std::vector<float> twice = folded;  // accumulates: a second call adds the same again
    table().col2im(s, col.data(), twice.data());
    for (size_t i = 0; i < x_elems; ++i)
      ASSERT_NEAR(twice[i], 2 * folded[i], 1e-5f * (1 + std::fabs(folded[i])));
  }
}

EDGEFOLD_INSTANTIATE_ISAS(Col2imTest, AllTrainIsas());

}  // namespace
}  // namespace edgefold::kernels::testing
