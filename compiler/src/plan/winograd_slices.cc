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

}  // namespace

int SliceWinogradScratch(LoweredModel* model, int threads) {
  if (threads <= 1) return 0;
  std::vector<fb::OperatorT*> sliced;
  std::vector<size_t> slices;
  size_t stride = 0;
  for (fb::OperatorT& op : model->ops) {
    kernels::WinogradLayout l;
    if (!WinogradLayoutOf(*model, op, &l)) continue;
    size_t n = std::min(static_cast<size_t>(threads), l.tiles_h);
    if (kernels::WinogradSliceKindOf(l, n) != kernels::WinogradSliceKind::kTileRows)
      n = std::min<size_t>(threads, l.geometry.out_c / kernels::kWinogradSliceChannels);
    const size_t bytes = kernels::WinogradSliceBytes(l, n);
    if (bytes == 0 || bytes == SIZE_MAX || n > UINT16_MAX) continue;
    sliced.push_back(&op);
    slices.push_back(n);
    stride = std::max(stride, bytes);
  }
  for (size_t i = 0; i < sliced.size(); ++i) {
    sliced[i]->scratch_slices = static_cast<uint16_t>(slices[i]);
    sliced[i]->scratch_bytes = slices[i] * stride;
  }
  return static_cast<int>(sliced.size());
}

}  // namespace edgefold::compiler
