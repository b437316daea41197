#include "write/efb_writer.h"

#include <algorithm>
#include <cstring>

#include "error.h"
#include "plan/arena_planner.h"
#include "write/training_section_writer.h"

namespace edgefold::compiler {
namespace {

std::vector<uint8_t> PackWeights(LoweredModel* model) {
  uint64_t cursor = 0;
  for (LoweredTensor& t : model->tensors) {
    if (!t.is_const) continue;
    cursor = AlignUp(cursor);
    t.weight_offset = static_cast<int64_t>(cursor);
    cursor += t.bytes;
  }
  // Never empty: the loader checks the blob's alignment, which an empty vector need not have.
  std::vector<uint8_t> blob(AlignUp(std::max<uint64_t>(cursor, 1)), 0);
  for (const LoweredTensor& t : model->tensors)
    if (t.is_const && t.bytes)
      std::memcpy(blob.data() + t.weight_offset,
                  t.dtype == fb::DType::Float32 ? static_cast<const void*>(t.data.data())
                                                : static_cast<const void*>(t.raw.data()),
                  t.bytes);
  return blob;
}

flatbuffers::Offset<fb::Tensor> WriteTensor(flatbuffers::FlatBufferBuilder& fbb,
                                            const LoweredTensor& t) {
  std::vector<int32_t> shape;
  for (int64_t d : t.shape) {
    if (d < 0 || d > INT32_MAX)
      throw CompileError("tensor '" + t.name + "': dim does not fit in 32 bits");
    shape.push_back(static_cast<int32_t>(d));
  }
  const uint64_t stored =
      t.dtype == fb::DType::Float32 ? t.data.size() * sizeof(float) : t.raw.size();
  if (t.is_const && stored != t.bytes)
    throw CompileError("tensor '" + t.name + "': constant data does not match its shape");
  flatbuffers::Offset<fb::QuantParams> quant;
  if (!t.scales.empty())
    quant = fb::CreateQuantParamsDirect(fbb, &t.scales, &t.zero_points, t.quant_axis);
  return fb::CreateTensorDirect(fbb, t.name.c_str(), &shape, t.dtype, fb::Layout::NCHW,
                                t.is_const ? -1 : t.arena_offset, t.is_const ? t.weight_offset : -1,
                                t.bytes, quant);
}

}  // namespace

std::vector<uint8_t> WriteEfb(LoweredModel* model, uint64_t* weight_bytes,
                              const TrainingSectionData* training) {
  const std::vector<uint8_t> blob = PackWeights(model);
  *weight_bytes = blob.size();
  flatbuffers::FlatBufferBuilder fbb(1024 + blob.size() * 2);
  fbb.ForceVectorAlignment(blob.size(), 1, kArenaAlignmentBytes);
  const auto weights = fbb.CreateVector(blob);
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const LoweredTensor& t : model->tensors) tensors.push_back(WriteTensor(fbb, t));
  std::vector<flatbuffers::Offset<fb::Operator>> ops;
  for (const fb::OperatorT& op : model->ops) ops.push_back(fb::CreateOperator(fbb, &op));
  bool int8 = false;
  for (const LoweredTensor& t : model->tensors) int8 = int8 || t.dtype != fb::DType::Float32;
  const uint32_t version = training != nullptr ? kEfbFormatVersionTraining
                           : int8              ? kEfbFormatVersionInt8
                                               : kEfbFormatVersion;
  const auto section = training != nullptr ? WriteTrainingSection(fbb, *training) : 0;
  const auto root = fb::CreateModel(
      fbb, version, fbb.CreateString("edgefold-compiler 0.1"), fbb.CreateVector(tensors),
      fbb.CreateVector(ops), fbb.CreateVector(model->inputs), fbb.CreateVector(model->outputs),
      model->arena_bytes, model->arena_lower_bound, weights, section);
  fb::FinishModelBuffer(fbb, root);
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyModelBuffer(verifier))
    throw CompileError("internal error: the written .efb fails verification");
  return bytes;
}

}  // namespace edgefold::compiler
