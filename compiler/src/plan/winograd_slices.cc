#include "plan/winograd_slices.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/conv/conv_winograd.h"
#include "plan/conv_shape_of.h"

namespace edgefold::compiler {
namespace {

// The Winograd layout of a Conv whose weights the compiler stored transformed, else false.
bool WinogradLayoutOf(const LoweredModel& m, const fb::OperatorT& op, kernels::WinogradLayout* l) {
  if (op.type != fb::OpType::Conv) return false;
  const fb::ConvOptionsT* o = op.options.AsConvOptions();
  if (o == nullptr) return false;
  const size_t tile = o->packing == fb::WeightPacking::Winograd2x3   ? 2
                      : o->packing == fb::WeightPacking::Winograd4x3 ? 4
                                                                     : 0;
  kernels::Conv2dShape s;
  if (tile == 0 || !ConvShapeOf(m, op, *o, &s)) return false;
  *l = kernels::MakeWinogradLayout(s, tile);
  return l->scratch_bytes != SIZE_MAX;
}

// A thread's tile rows still fill a register of GEMM columns (16 floats, AVX-512) and its V
// and M are no smaller than U (which every thread reads whole). Below that the tile rows'
// GEMMs run padded columns: ResNet-8's 16² × 32 and 8² × 64 convs at two threads, 8 columns
// per thread, ran 2× slower sliced, even on one thread.
constexpr size_t kMinSliceColumns = 16;
bool SlicesPay(const kernels::WinogradLayout& l, size_t rows) {
  const size_t columns = rows * l.geometry.tiles_w;
  const size_t in_c = l.geometry.in_c, out_c = l.geometry.out_c;
  return columns >= kMinSliceColumns && in_c * out_c <= (in_c + out_c) * columns;
}

}  // namespace

int SliceWinogradScratch(LoweredModel* model, int threads) {
  if (threads <= 1) return 0;
  std::vector<fb::OperatorT*> sliced;
  std::vector<size_t> slices;
  size_t stride = 0;
  for (fb::OperatorT& op : model->ops) {
    kernels::WinogradLayout l;
    if (!WinogradLayoutOf(*model, op, &l) || l.tiles_h < 2) continue;
    const size_t n = std::min(static_cast<size_t>(threads), l.tiles_h);
    const size_t rows = (l.tiles_h + n - 1) / n;
    const kernels::WinogradSlice slice = kernels::MakeWinogradSlice(l, rows);
    if (slice.bytes == SIZE_MAX || n > UINT16_MAX || !SlicesPay(l, rows)) continue;
    sliced.push_back(&op);
    slices.push_back(n);
    stride = std::max(stride, slice.bytes);
  }
  for (size_t i = 0; i < sliced.size(); ++i) {
    sliced[i]->scratch_slices = static_cast<uint16_t>(slices[i]);
    sliced[i]->scratch_bytes = slices[i] * stride;
  }
  return static_cast<int>(sliced.size());
}

}  // namespace edgefold::compiler
