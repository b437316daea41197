// int8 Softmax over the last axis (SoftmaxInt8, docs/quantization.md), integer only so that
// every ISA and Cortex-M gives the same bytes. Per row of `classes` int8 values x (scale s_x):
//   k_i = max(x) − x_i ∈ [0, 255],  S = Σ_i T[k_i]  (64-bit),
//   y_i = clamp(round_half_up(256·T[k_i] / S) − 128, −128, 127)
// with T[k] = round(2^20·exp(−k·s_x)) (SoftmaxS8ExpTable), so y is in the fixed output
// quantization scale 1/256, zero point −128. round_half_up(a/S) = ⌊(a + ⌊S/2⌋)/S⌋ (equal to
// ⌊(2a + S)/(2S)⌋ for every S: an odd S never meets an exact half).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace edgefold::kernels {

constexpr size_t kSoftmaxS8TableElems = 256;
constexpr int32_t kSoftmaxS8TableOne = int32_t{1} << 20;  // T[0] = 2^20·exp(0)
constexpr float kSoftmaxS8OutputScale = 1.0f / 256.0f;
constexpr int32_t kSoftmaxS8OutputZeroPoint = -128;

// T[k] = round(2^20·exp(−k·input_scale)), half away from zero, in double: what the compiler
// stores (host code; the kernel itself never touches a float).
inline void SoftmaxS8ExpTable(float input_scale, int32_t* table) {
  for (size_t k = 0; k < kSoftmaxS8TableElems; ++k)
    table[k] = static_cast<int32_t>(std::round(
        std::ldexp(std::exp(-static_cast<double>(k) * static_cast<double>(input_scale)), 20)));
}

namespace ref {

// `rows` rows of `classes` values, x and y [rows × classes]; exp_table holds 256 values in
// [0, 2^20] with exp_table[0] ≥ 1 (ops/softmax_int8.cc checks this at Prepare).
void SoftmaxS8(const int32_t* exp_table, const int8_t* x, int8_t* y, size_t rows, size_t classes);

}  // namespace ref
}  // namespace edgefold::kernels
