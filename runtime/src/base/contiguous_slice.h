// Whether a Slice selects one contiguous run of its input, and where it starts: the compiler
// then plans the output inside the input (a view, no copy) and the model reader accepts exactly
// that overlap. One definition for both, over any indexable shape and option lists.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgefold {

// The first element of x the run starts at, or −1 when the slice is not one run: steps of 1
// (any step on an axis of extent 1), whole axes from the last one back, then at most one
// partial axis, then single indices. x, y: shapes of `rank` dims; starts, steps: per axis.
template <class XShape, class YShape, class Starts, class Steps>
int64_t ContiguousSliceStart(size_t rank, const XShape& x, const YShape& y, const Starts& starts,
                             const Steps& steps) {
  size_t d = rank;
  while (d > 0 && starts[d - 1] == 0 && y[d - 1] == x[d - 1] && steps[d - 1] == 1) --d;
  if (d > 0) {
    if (steps[d - 1] != 1 && y[d - 1] != 1) return -1;
    --d;
  }
  for (size_t a = 0; a < d; ++a)
    if (y[a] != 1) return -1;
  int64_t start = 0, stride = 1;
  for (size_t a = rank; a-- > 0;) {
    if (starts[a] < 0 || starts[a] >= x[a] || y[a] < 1) return -1;
    start += static_cast<int64_t>(starts[a]) * stride;
    stride *= static_cast<int64_t>(x[a]);
  }
  return start;
}

}  // namespace edgefold
