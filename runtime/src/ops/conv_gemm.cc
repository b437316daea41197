// Conv's direct and GEMM paths: the depthwise kernel (kDirect), and per group a GEMM that reads
// the taps from phase planes (kPhasePlanes), from im2col's columns (kIm2col) or, pointwise, from
// the input itself (kDirect).
#include <algorithm>
#include <cstdint>

#include "kernels/conv/conv_scratch.h"
#include "ops/conv_paths.h"

namespace edgefold::internal::conv {
namespace {

// Threads split a conv's GEMM over output channels (rows) unless there are too few of them for
// whole 8-row tiles per thread to balance (24 channels over 2 threads: 16 + 8) while the pixels
// are many: then over pixels, and each thread reads only its columns of the input.
bool SplitGemmColumns(const Parallel* parallel, size_t rows, size_t columns) {
  const size_t threads = parallel != nullptr ? parallel->threads : 1;
  return threads > 1 && rows < 32 * threads && columns >= 256 * threads;
}

// The phase planes fill over plane rows when the input channels are too few to split evenly
// (VWW's and ResNet-8's 3-channel stems: 1 + 2 channels over two threads).
bool FillByRows(const Parallel* parallel, size_t channels) {
  if (!kMultiThreaded || parallel == nullptr || parallel->run == nullptr) return false;
  const size_t threads = parallel->threads;
  return threads > 1 && channels % threads != 0 && channels < 4 * threads;
}

// One group's operands for the GEMM paths, the scratch it fills and the threads its steps split
// over (nullptr while threads take whole groups).
struct GroupIo {
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  float* scratch;
  const Parallel* parallel;
};

// kPhasePlanes, one group: the planes split over input channels, then the GEMM over output
// channels in whole register tiles, or over pixels when the channels are few.
void PhasePlanesGroup(OpContext& ctx, const ConvPrepared& p, const GroupIo& g) {
  const kernels::Conv2dShape& s = p.shape;
  const kernels::Activation act = ctx.op.options.conv.act;
  const size_t cin_g = s.in_c / s.group, cout_g = s.out_c / s.group, out_plane = s.out_h * s.out_w;
  const size_t k = cin_g * s.kh * s.kw;
  if (FillByRows(g.parallel, cin_g)) {
    ForEachRowRange(g.parallel, p.phase.plane_h,
                    cin_g * s.in_h * s.in_w * kElementWork / std::max<size_t>(1, p.phase.plane_h),
                    1, [&](size_t r0, size_t r1) {
                      kernels::Conv2dPhaseFillRows(s, p.phase, g.x, g.scratch, r0, r1);
                    });
  } else {
    ForEachRowRange(g.parallel, cin_g, s.in_h * s.in_w * kElementWork, 1,
                    [&](size_t c0, size_t c1) {
                      kernels::Conv2dPhaseFill(s, p.phase, g.x, g.scratch, c0, c1);
                    });
  }
  if (!SplitGemmColumns(g.parallel, cout_g, out_plane)) {
    ForEachRowRange(g.parallel, cout_g, out_plane * k, 8, [&](size_t o0, size_t o1) {
      kernels::Conv2dPhaseRows(ctx.k, s, p.phase, g.w, g.bias, act, g.y, g.scratch, o0, o1);
    });
    return;
  }
  const size_t units = kernels::Conv2dPhasePixelUnits(s, p.phase);
  const bool rows = p.phase.row_gemms;
  ForEachRowRange(g.parallel, units, cout_g * k * (rows ? s.out_w : 1), rows ? 1 : 64,
                  [&](size_t u0, size_t u1) {
                    kernels::Conv2dPhasePixels(ctx.k, s, p.phase, g.w, g.bias, act, g.y, g.scratch,
                                               u0, u1);
                  });
  ForEachRowRange(g.parallel, cout_g, out_plane * kElementWork, 1, [&](size_t o0, size_t o1) {
    kernels::Conv2dPhaseCompact(s, p.phase, g.y, g.scratch, o0, o1);
  });
}

// kIm2col (and pointwise kDirect, whose columns are the input itself), one group: input channel
// c fills column rows [c·kh·kw, (c+1)·kh·kw), then the GEMM's rows (output channels) split over
// threads in whole register tiles, or its columns in runs of 64 when the channels are few
// (MobileNetV2's 144 → 24 projection at 56²: each thread reads its part of B; 64 is a multiple
// of every vector width, so the column tail and the bits do not change).
void Im2colGemmGroup(OpContext& ctx, const ConvPrepared& p, const GroupIo& g) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t cin_g = s.in_c / s.group, cout_g = s.out_c / s.group, out_plane = s.out_h * s.out_w;
  const size_t k = cin_g * s.kh * s.kw, in_plane = s.in_h * s.in_w;
  const float* col = g.x;
  if (!kernels::ConvIsPointwise(s)) {
    ForEachRowRange(g.parallel, cin_g, s.kh * s.kw * out_plane, 1, [&](size_t c0, size_t c1) {
      kernels::Conv2dShape part = s;
      part.in_c = c1 - c0, part.group = 1;
      ctx.k.im2col(part, g.x + c0 * in_plane, g.scratch + c0 * s.kh * s.kw * out_plane);
    });
    col = g.scratch;
  }
  kernels::GemmParams gp;
  gp.m = cout_g, gp.n = out_plane, gp.k = k;
  gp.lda = k, gp.ldb = out_plane, gp.ldc = out_plane;
  gp.bias = g.bias, gp.bias_per_row = true;
  gp.act = ctx.op.options.conv.act;
  if (SplitGemmColumns(g.parallel, cout_g, out_plane)) {
    ForEachRowRange(g.parallel, out_plane, cout_g * k, 64, [&](size_t j0, size_t j1) {
      kernels::GemmParams part = gp;
      part.n = j1 - j0;
      ctx.k.gemm(part, g.w, col + j0, g.y + j0);
    });
    return;
  }
  ForEachRowRange(g.parallel, cout_g, out_plane * k, 8, [&](size_t o0, size_t o1) {
    kernels::GemmParams part = gp;
    part.m = o1 - o0;
    part.bias = g.bias ? g.bias + o0 : nullptr;
    ctx.k.gemm(part, g.w + o0 * k, col, g.y + o0 * out_plane);
  });
}

// One thread's scratch on the path (0: none, the input is the GEMM's B).
size_t GroupScratchBytes(const ConvPrepared& p) {
  switch (p.path) {
    case ConvPath::kPhasePlanes:
      return p.phase.scratch_bytes;
    case ConvPath::kIm2col:
      return kernels::ConvIm2colScratchBytes(p.shape);
    default:
      return 0;
  }
}

// Threads taking whole groups: one per scratch slice of the plan at most. 1 (each group's steps
// split on their own) when the plan holds one slice, or when there are fewer groups than threads:
// the groups are then few and large, and all the threads work on each in turn.
size_t GroupTasks(const Parallel* parallel, const ConvPrepared& p) {
  if (!kMultiThreaded || parallel == nullptr || parallel->run == nullptr ||
      p.shape.group < parallel->threads)
    return 1;
  return std::min(parallel->threads, size_t{p.group_slices});
}

}  // namespace

uint16_t GroupSlices(const ConvPrepared& p, size_t scratch_bytes) {
  if (!kMultiThreaded || !kernels::ConvSplitsByGroup(p.shape) || p.channel_scale) return 0;
  const size_t held = kernels::ConvScratchSlicesHeld(GroupScratchBytes(p), scratch_bytes);
  return static_cast<uint16_t>(std::min<size_t>(held, UINT16_MAX));
}

// kDirect, depthwise: channels are independent, each task takes a run of them.
void RunDepthwise(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  for (size_t n = 0; n < p.batch; ++n) {
    const float* xn = io.x + n * s.in_c * plane;
    float* yn = io.y + n * s.out_c * out_plane;
    ForEachRowRange(ctx.parallel, s.out_c, out_plane * s.kh * s.kw, 1, [&](size_t c0, size_t c1) {
      kernels::Conv2dShape part = s;
      part.in_c = part.out_c = part.group = c1 - c0;
      p.conv->conv2d_depthwise(part, xn + c0 * plane, io.w + c0 * s.kh * s.kw,
                               io.bias ? io.bias + c0 : nullptr, ctx.op.options.conv.act,
                               yn + c0 * out_plane);
    });
  }
}

// kPhasePlanes, kIm2col and pointwise kDirect: per image (scaled first when the channel scale
// is on the image) and group. A grouped conv whose plan holds scratch for several threads splits
// by group: each task a contiguous range of whole groups in its own scratch slice, each group's
// steps on one thread, so every sum is the one-thread sum (kernels::ConvSplitsByGroup).
void RunGroupGemms(OpContext& ctx, const ConvPrepared& p, const ConvIo& io) {
  const kernels::Conv2dShape& s = p.shape;
  const size_t plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  const size_t cin_g = s.in_c / s.group, cout_g = s.out_c / s.group, k = cin_g * s.kh * s.kw;
  for (size_t n = 0; n < p.batch; ++n) {
    const float* xn = io.x + n * s.in_c * plane;
    if (io.scaled_input != nullptr) {  // x'[c, j] = x[c, j]·s[c]
      ForEachRowRange(ctx.parallel, s.in_c, plane * kElementWork, 1, [&](size_t c0, size_t c1) {
        for (size_t c = c0; c < c1; ++c)
          for (size_t j = 0; j < plane; ++j)
            io.scaled_input[c * plane + j] = xn[c * plane + j] * io.scale[c];
      });
      xn = io.scaled_input;
    }
    const auto run_groups = [&](size_t g0, size_t g1, float* scratch, const Parallel* parallel) {
      for (size_t g = g0; g < g1; ++g) {
        const GroupIo group{xn + g * cin_g * plane,
                            io.w + g * cout_g * k,
                            io.bias ? io.bias + g * cout_g : nullptr,
                            io.y + (n * s.out_c + g * cout_g) * out_plane,
                            scratch,
                            parallel};
        if (p.path == ConvPath::kPhasePlanes)
          PhasePlanesGroup(ctx, p, group);
        else
          Im2colGemmGroup(ctx, p, group);
      }
    };
    const size_t tasks = GroupTasks(ctx.parallel, p);
    if (tasks < 2) {
      run_groups(0, s.group, ctx.op.scratch, ctx.parallel);
      continue;
    }
    Parallel by_group = *ctx.parallel;
    by_group.threads = tasks;
    const size_t slice_floats =
        kernels::ConvScratchSliceBytes(GroupScratchBytes(p)) / sizeof(float);
    ForEachRowTask(&by_group, s.group, cout_g * k * out_plane, 1,
                   [&](size_t task, size_t g0, size_t g1) {
                     run_groups(g0, g1, ctx.op.scratch + task * slice_floats, nullptr);
                   });
  }
}

}  // namespace edgefold::internal::conv
