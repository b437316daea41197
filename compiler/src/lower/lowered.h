// The lowered model: schema operators (object API) over numbered tensors, before planning.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "edgefold/model_generated.h"

namespace edgefold::compiler {

struct LoweredTensor {
  std::string name;
  std::vector<int64_t> shape;
  bool is_const = false;
  std::vector<float> data;     // constants only
  int64_t arena_offset = -1;   // set by the planner for activations
  int64_t weight_offset = -1;  // set by the writer for constants
  uint64_t bytes = 0;          // shape product × dtype size
  // int8 (compile --quantize int8): the dtype, int8/int32 constants' bytes (`data` stays
  // empty for them) and real = (q − zero_point)·scale, per tensor or per index of quant_axis.
  fb::DType dtype = fb::DType::Float32;
  std::vector<uint8_t> raw;
  std::vector<float> scales;
  std::vector<int32_t> zero_points;
  int quant_axis = 0;
};

struct LoweredModel {
  std::vector<LoweredTensor> tensors;
  std::vector<fb::OperatorT> ops;  // topological order; scratch_bytes set, offsets planned later
  std::vector<int> inputs, outputs;
  uint64_t arena_bytes = 0;
  uint64_t arena_lower_bound = 0;
  int tensor_views = 0;  // tensors the planner placed inside another (plan/tensor_views.h)
};

}  // namespace edgefold::compiler
