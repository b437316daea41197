// The int8 global pool's driver over channel rows, shared by the x86 levels: each level's
// header (global_pool_s8_x86.h on AVX-512BW, global_pool_s8_avx2.h on AVX2) supplies the row
// maximum and row sum; the mean is rounded half away from zero, as ref::GlobalPoolS8's
// RoundedMean. Included by those headers inside the arch namespace.
#pragma once

template <int8_t (*MaxRow)(const int8_t*, size_t), int32_t (*SumRow)(const int8_t*, size_t)>
inline void GlobalPoolS8Rows(PoolKind kind, const int8_t* x, int8_t* y, size_t channels,
                             size_t spatial) {
  const int32_t count = static_cast<int32_t>(spatial);
  for (size_t c = 0; c < channels; ++c) {
    const int8_t* row = x + c * spatial;
    if (kind == PoolKind::kMax) {
      y[c] = MaxRow(row, spatial);
      continue;
    }
    const int32_t sum = SumRow(row, spatial);
    y[c] = static_cast<int8_t>(sum >= 0 ? (2 * sum + count) / (2 * count)
                                        : -((-2 * sum + count) / (2 * count)));
  }
}
