#include "adaptation/int8_accumulators.h"

#include "ops/window_params.h"

namespace edgefold::internal {
namespace {

const int8_t* S8(const TensorInfo& t) { return reinterpret_cast<const int8_t*>(t.data); }

size_t ConvMoments(const OpContext& ctx, const int32_t* bias, double* sum, double* sum_sq) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const kernels::Conv2dShape s =
      MakeConv2dShape(ConvOptionsOfInt8(ctx.op.options), x, w, ctx.output(0));
  const size_t batch = static_cast<size_t>(x.shape[0]), in_cg = s.in_c / s.group,
               out_cg = s.out_c / s.group;
  const long in_h = static_cast<long>(s.in_h), in_w = static_cast<long>(s.in_w);
  const int32_t zp = x.zero_points[0];
  for (size_t oc = 0; oc < s.out_c; ++oc) sum[oc] = sum_sq[oc] = 0;
  for (size_t n = 0; n < batch; ++n)
    for (size_t oc = 0; oc < s.out_c; ++oc) {
      const size_t g = oc / out_cg;
      const int8_t* wc = S8(w) + oc * in_cg * s.kh * s.kw;
      const int8_t* xg = S8(x) + (n * s.in_c + g * in_cg) * s.in_h * s.in_w;
      for (size_t oh = 0; oh < s.out_h; ++oh)
        for (size_t ow = 0; ow < s.out_w; ++ow) {
          int64_t acc = bias[oc];
          for (size_t ic = 0; ic < in_cg; ++ic)
            for (size_t ky = 0; ky < s.kh; ++ky) {
              const long ih = static_cast<long>(oh * s.stride_h + ky * s.dilation_h) -
                              static_cast<long>(s.pad_top);
              for (size_t kx = 0; kx < s.kw; ++kx) {
                const long iw = static_cast<long>(ow * s.stride_w + kx * s.dilation_w) -
                                static_cast<long>(s.pad_left);
                const int32_t v = (ih < 0 || ih >= in_h || iw < 0 || iw >= in_w)
                                      ? zp
                                      : xg[(ic * s.in_h + static_cast<size_t>(ih)) * s.in_w +
                                           static_cast<size_t>(iw)];
                acc += int32_t{wc[(ic * s.kh + ky) * s.kw + kx]} * v;
              }
            }
          const double a = static_cast<double>(acc);
          sum[oc] += a;
          sum_sq[oc] += a * a;
        }
    }
  return batch * s.out_h * s.out_w;
}

size_t GemmMoments(const OpContext& ctx, const int32_t* bias, double* sum, double* sum_sq) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  const size_t rows = static_cast<size_t>(x.shape[0]), k = static_cast<size_t>(w.shape[1]),
               n = static_cast<size_t>(w.shape[0]);
  for (size_t j = 0; j < n; ++j) {
    sum[j] = sum_sq[j] = 0;
    for (size_t i = 0; i < rows; ++i) {
      int64_t acc = bias[j];
      for (size_t q = 0; q < k; ++q) acc += int32_t{S8(w)[j * k + q]} * int32_t{S8(x)[i * k + q]};
      const double a = static_cast<double>(acc);
      sum[j] += a;
      sum_sq[j] += a * a;
    }
  }
  return rows;
}

}  // namespace

size_t AccumulatorMoments(const OpContext& ctx, const int32_t* bias, double* sum, double* sum_sq) {
  return ctx.op.kind == OpKind::kConvInt8 ? ConvMoments(ctx, bias, sum, sum_sq)
                                          : GemmMoments(ctx, bias, sum, sum_sq);
}

}  // namespace edgefold::internal
