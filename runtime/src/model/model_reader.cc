#include "model/model_reader.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "edgefold/model_generated.h"
#include "model/aliasing_check.h"
#include "model/options_reader.h"
#include "model/training_section_reader.h"

static_assert(FLATBUFFERS_LITTLEENDIAN, "index vectors are read in place: little-endian only");

namespace edgefold::internal {
namespace {

constexpr size_t kMaxElems = SIZE_MAX / sizeof(float);

// Every OpType has exactly one options table, in the same order as the union.
constexpr fb::OpOptions ExpectedOptions(fb::OpType type) {
  return static_cast<fb::OpOptions>(static_cast<int>(type) + 1);
}

// The schema's OpType and OpOptions and the runtime's OpKind come from two lists (the schema,
// edgefold/op_list.h): tie them here, where the cast from one to the other happens.
#define EDGEFOLD_CHECK_OP(op)                                                                   \
  static_assert(static_cast<int>(fb::OpType::op) == static_cast<int>(OpKind::k##op),            \
                "OpType::" #op " and OpKind::k" #op " differ: keep op_list.h in schema order"); \
  static_assert(ExpectedOptions(fb::OpType::op) == fb::OpOptions::op##Options,                  \
                "OpOptions::" #op "Options is not at OpType::" #op "'s place in the union");
EDGEFOLD_FOR_EACH_OP(EDGEFOLD_CHECK_OP)
#undef EDGEFOLD_CHECK_OP
static_assert(static_cast<int>(fb::OpType::MAX) + 1 == static_cast<int>(OpKind::kCount),
              "schema OpType and edgefold/op_list.h have different op counts");

bool FitsIn(uint64_t offset, uint64_t bytes, uint64_t limit) {
  return offset <= limit && bytes <= limit - offset;
}

// Scales finite and > 0, zero points within the dtype (int8 per-channel weights: 0), one scale
// per tensor or one per index of the axis.
const char* CheckQuant(const fb::Tensor* t) {
  const fb::QuantParams* q = t->quant();
  if (q == nullptr)
    return t->dtype() == fb::DType::Int8 ? "int8 tensor without scale and zero point" : nullptr;
  if (q->scales() == nullptr || q->zero_points() == nullptr || q->scales()->size() == 0 ||
      q->scales()->size() != q->zero_points()->size())
    return "quantization needs as many zero points as scales (at least one)";
  const uint32_t n = q->scales()->size();
  const int32_t rank = static_cast<int32_t>(t->shape()->size());
  if (n > 1 && (q->axis() < 0 || q->axis() >= rank ||
                static_cast<uint32_t>(t->shape()->Get(static_cast<uint32_t>(q->axis()))) != n))
    return "per-channel scales do not match the quantized axis";
  for (uint32_t i = 0; i < n; ++i) {
    const float sc = q->scales()->Get(i);
    if (!(std::isfinite(sc) && sc > 0.0f)) return "scale is zero, negative or not finite";
    const int32_t zp = q->zero_points()->Get(i);
    if (t->dtype() == fb::DType::Int8 && (zp < -128 || zp > 127)) return "zero point outside int8";
    if (n > 1 && zp != 0) return "per-channel zero points must be 0";
  }
  return nullptr;
}

Status CheckTensor(const fb::Tensor* t, size_t index, const ModelSummary& s, size_t weight_bytes,
                   ErrorReporter& errors) {
  const char* name = (t->name() != nullptr) ? t->name()->c_str() : "";
  auto fail = [&](const char* what) {
    errors.Report("tensor %zu '%s': %s", index, name, what);
    return Status::kInvalidModel;
  };
  if (t->shape() == nullptr || t->shape()->size() > static_cast<uint32_t>(kMaxRank))
    return fail("missing shape or rank above 6");
  if (static_cast<int>(t->dtype()) > static_cast<int>(fb::DType::MAX)) return fail("unknown dtype");
  if (t->dtype() != fb::DType::Float32 && !s.int8_format)
    return fail("int8/int32 tensors need format version 2");
  if (const char* why = CheckQuant(t)) return fail(why);
  size_t elems = 1;
  for (int32_t d : *t->shape()) {
    if (d <= 0) return fail("dimension is zero or negative");
    if (elems > kMaxElems / static_cast<size_t>(d)) return fail("element count overflows");
    elems *= static_cast<size_t>(d);
  }
  if (t->bytes() != elems * DTypeBytes(t->dtype()))
    return fail("byte size does not match its shape and dtype");
  const bool planned = t->arena_offset() >= 0;
  const bool constant = t->weight_offset() >= 0;
  if (planned == constant) return fail("needs exactly one of arena_offset and weight_offset");
  if (planned) {
    if (t->arena_offset() % 4 != 0 ||
        !FitsIn(static_cast<uint64_t>(t->arena_offset()), t->bytes(), s.planned_arena_bytes))
      return fail("arena offset misaligned or outside the planned arena");
  } else if (t->weight_offset() % 64 != 0 ||
             !FitsIn(static_cast<uint64_t>(t->weight_offset()), t->bytes(), weight_bytes)) {
    return fail("weight offset not 64-byte aligned or outside the weights");
  }
  return Status::kOk;
}

Status CheckIndexList(const flatbuffers::Vector<int32_t>* list, const fb::Model* m,
                      bool allow_absent, bool must_be_planned, const char* what, const char* op,
                      ErrorReporter& errors) {
  if (list == nullptr) {
    errors.Report("op '%s': missing %s", op, what);
    return Status::kInvalidModel;
  }
  const int32_t n = static_cast<int32_t>(m->tensors()->size());
  for (int32_t i : *list) {
    if (i == -1 && allow_absent) continue;
    if (i < 0 || i >= n) {
      errors.Report("op '%s': %s index %d out of range [0, %d)", op, what, static_cast<int>(i),
                    static_cast<int>(n));
      return Status::kInvalidModel;
    }
    if (must_be_planned && m->tensors()->Get(i)->arena_offset() < 0) {
      errors.Report("op '%s': %s tensor %d is a constant", op, what, static_cast<int>(i));
      return Status::kInvalidModel;
    }
  }
  return Status::kOk;
}

// The float ops read and write float32 only; the int8 ops and the copies (Reshape, Concat,
// Pad, Transpose, Slice: ops/int8_operands.h CheckCopyDtypes) check their dtypes in Prepare.
bool IsInt8Op(fb::OpType t) {
  return (t >= fb::OpType::Quantize && t <= fb::OpType::SoftmaxInt8) || t == fb::OpType::Reshape ||
         t == fb::OpType::Concat || t == fb::OpType::Pad || t == fb::OpType::Transpose ||
         t == fb::OpType::Slice;
}

Status CheckFloatOperands(const fb::Operator* op, const fb::Model* m, const char* name,
                          ErrorReporter& errors) {
  if (IsInt8Op(op->type())) return Status::kOk;
  for (const auto* list : {op->inputs(), op->outputs()})
    for (int32_t i : *list)
      if (i >= 0 && m->tensors()->Get(static_cast<uint32_t>(i))->dtype() != fb::DType::Float32) {
        errors.Report("op '%s': tensor '%s' is not float32 (only the int8 ops take other dtypes)",
                      name, TensorName(m, i));
        return Status::kInvalidModel;
      }
  return Status::kOk;
}

Status CheckOperator(const fb::Operator* op, size_t index, const fb::Model* m,
                     const ModelSummary& s, ErrorReporter& errors) {
  const char* name = (op->name() != nullptr) ? op->name()->c_str() : "";
  if (static_cast<int>(op->type()) >= static_cast<int>(OpKind::kCount)) {
    errors.Report("op %zu '%s': unknown op type %d", index, name, static_cast<int>(op->type()));
    return Status::kUnsupportedOp;
  }
  if (op->options_type() != ExpectedOptions(op->type()) || op->options() == nullptr) {
    errors.Report("op %zu '%s': options do not match its type", index, name);
    return Status::kInvalidModel;
  }
  EDGEFOLD_RETURN_IF_ERROR(CheckIndexList(op->inputs(), m, true, false, "input", name, errors));
  EDGEFOLD_RETURN_IF_ERROR(CheckIndexList(op->outputs(), m, false, true, "output", name, errors));
  if (op->outputs()->size() == 0) {
    errors.Report("op %zu '%s': has no output", index, name);
    return Status::kInvalidModel;
  }
  if (op->scratch_bytes() > 0 && (op->scratch_offset() < 0 || op->scratch_offset() % 4 != 0 ||
                                  !FitsIn(static_cast<uint64_t>(op->scratch_offset()),
                                          op->scratch_bytes(), s.planned_arena_bytes))) {
    errors.Report("op %zu '%s': scratch outside the planned arena", index, name);
    return Status::kInvalidModel;
  }
  EDGEFOLD_RETURN_IF_ERROR(CheckNoAliasing(op, m, name, errors));
  EDGEFOLD_RETURN_IF_ERROR(CheckFloatOperands(op, m, name, errors));
  if (!CheckOptions(op, errors)) return Status::kInvalidModel;
  return Status::kOk;
}

// The bytes: size, alignment, identifier, FlatBuffers verification.
Status CheckBuffer(const uint8_t* model, size_t model_bytes, ErrorReporter& errors) {
  if (model == nullptr || model_bytes < 8) {
    errors.Report("model buffer is null or shorter than a FlatBuffer header");
    return Status::kInvalidModel;
  }
  if (reinterpret_cast<uintptr_t>(model) % kArenaAlignment != 0) {
    errors.Report("model buffer must start at a 64-byte boundary (weights are read in place)");
    return Status::kMisalignedModel;
  }
  if (!fb::ModelBufferHasIdentifier(model)) {
    errors.Report("not an edgefold model: file identifier is not EFB1");
    return Status::kInvalidModel;
  }
  flatbuffers::Verifier verifier(model, model_bytes);
  if (!fb::VerifyModelBuffer(verifier)) {
    errors.Report("model failed FlatBuffers verification (corrupt or truncated)");
    return Status::kInvalidModel;
  }
  return Status::kOk;
}

// The model table: format version, the lists every graph has, an arena this machine can address.
Status CheckModelTable(const fb::Model* m, ErrorReporter& errors) {
  if (m->format_version() < kFormatVersion || m->format_version() > kFormatVersionTraining) {
    errors.Report("model format version %u, this runtime reads %u to %u", m->format_version(),
                  kFormatVersion, kFormatVersionTraining);
    return Status::kUnsupportedVersion;
  }
  if (m->tensors() == nullptr || m->operators() == nullptr || m->inputs() == nullptr ||
      m->outputs() == nullptr || m->operators()->size() == 0) {
    errors.Report("model has no tensors, operators, inputs or outputs");
    return Status::kInvalidModel;
  }
  if (m->arena_bytes() > SIZE_MAX / 2) {
    errors.Report("planned arena of %llu bytes does not fit this machine",
                  static_cast<unsigned long long>(m->arena_bytes()));
    return Status::kInvalidModel;
  }
  return Status::kOk;
}

ModelSummary Summarize(const fb::Model* m) {
  ModelSummary s;
  s.int8_format = m->format_version() >= kFormatVersionInt8;  // version 3 reads as version 2 does
  s.num_tensors = m->tensors()->size();
  s.num_ops = m->operators()->size();
  s.num_inputs = m->inputs()->size();
  s.num_outputs = m->outputs()->size();
  s.planned_arena_bytes = static_cast<size_t>(m->arena_bytes());
  s.inputs = m->inputs()->data();
  s.outputs = m->outputs()->data();
  return s;
}

// Graph inputs and outputs: valid indices, float32 or int8 with one scale and zero point
// (compile --io int8).
Status CheckGraphIo(const fb::Model* m, ErrorReporter& errors) {
  EDGEFOLD_RETURN_IF_ERROR(
      CheckIndexList(m->inputs(), m, false, true, "graph input", "<graph>", errors));
  EDGEFOLD_RETURN_IF_ERROR(
      CheckIndexList(m->outputs(), m, false, true, "graph output", "<graph>", errors));
  for (const auto* list : {m->inputs(), m->outputs()})
    for (int32_t i : *list) {
      const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(i));
      if (t->dtype() == fb::DType::Float32) continue;
      if (t->dtype() != fb::DType::Int8 || t->quant()->scales()->size() != 1) {
        errors.Report("graph input/output '%s' is not float32 or per-tensor int8",
                      TensorName(m, i));
        return Status::kInvalidModel;
      }
    }
  return Status::kOk;
}

}  // namespace

Status CheckModel(const uint8_t* model, size_t model_bytes, ErrorReporter& errors,
                  ModelSummary* summary) {
  EDGEFOLD_RETURN_IF_ERROR(CheckBuffer(model, model_bytes, errors));
  const fb::Model* m = fb::GetModel(model);
  EDGEFOLD_RETURN_IF_ERROR(CheckModelTable(m, errors));
  const ModelSummary s = Summarize(m);
  const size_t weight_bytes = (m->weights() != nullptr) ? m->weights()->size() : 0;
  // FlatBuffers does not align an empty vector; only a non-empty blob must be aligned.
  if (weight_bytes > 0 && reinterpret_cast<uintptr_t>(m->weights()->data()) % 64 != 0) {
    errors.Report("weights blob is not 64-byte aligned inside the model");
    return Status::kInvalidModel;
  }
  for (size_t i = 0; i < s.num_tensors; ++i)
    EDGEFOLD_RETURN_IF_ERROR(CheckTensor(m->tensors()->Get(i), i, s, weight_bytes, errors));
  for (size_t i = 0; i < s.num_ops; ++i)
    EDGEFOLD_RETURN_IF_ERROR(CheckOperator(m->operators()->Get(i), i, m, s, errors));
  EDGEFOLD_RETURN_IF_ERROR(CheckGraphIo(m, errors));
  if (summary != nullptr) *summary = s;
  return Status::kOk;
}

void ReadTensor(const uint8_t* model, size_t index, uint8_t* planned_arena, TensorInfo* out) {
  const fb::Model* m = fb::GetModel(model);
  const uint8_t* weights = (m->weights() != nullptr) ? m->weights()->data() : nullptr;
  const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(index));
  TensorInfo& info = *out;
  info = TensorInfo();
  info.name = (t->name() != nullptr) ? t->name()->c_str() : "";
  info.rank = static_cast<int>(t->shape()->size());
  info.elems = 1;
  for (int d = 0; d < info.rank; ++d) {
    info.shape[d] = t->shape()->Get(d);
    info.elems *= static_cast<size_t>(info.shape[d]);
  }
  info.dtype = static_cast<DType>(t->dtype());
  if (const fb::QuantParams* q = t->quant()) {
    info.scales = q->scales()->data();
    info.zero_points = q->zero_points()->data();
    info.num_scales = q->scales()->size();
    info.quant_axis = q->axis();
  }
  info.is_constant = t->weight_offset() >= 0;
  // Constants are never written by inference ops; the const_cast is confined to here.
  info.data = info.is_constant
                  ? reinterpret_cast<float*>(const_cast<uint8_t*>(weights + t->weight_offset()))
              : planned_arena != nullptr
                  ? reinterpret_cast<float*>(planned_arena + t->arena_offset())
                  : nullptr;
}

void ReadOp(const uint8_t* model, size_t index, uint8_t* planned_arena, OpDesc* out) {
  const fb::Operator* op = fb::GetModel(model)->operators()->Get(static_cast<uint32_t>(index));
  OpDesc& d = *out;
  std::memset(static_cast<void*>(&d), 0, sizeof(d));
  d.kind = static_cast<OpKind>(op->type());
  d.name = (op->name() != nullptr) ? op->name()->c_str() : "";
  d.inputs = op->inputs()->data();
  d.num_inputs = op->inputs()->size();
  d.outputs = op->outputs()->data();
  d.num_outputs = op->outputs()->size();
  if (op->scratch_bytes() > 0) {
    d.scratch = planned_arena != nullptr
                    ? reinterpret_cast<float*>(planned_arena + op->scratch_offset())
                    : nullptr;
    d.scratch_bytes = static_cast<size_t>(op->scratch_bytes());
#if !defined(EDGEFOLD_SINGLE_THREAD)  // one thread runs a sliced conv the one-scratch way
    d.scratch_slices = op->scratch_slices();
#endif
  }
  ReadOptions(op, &d.options);
}

void ReadModel(const uint8_t* model, uint8_t* planned_arena, TensorInfo* tensors, OpDesc* ops) {
  const fb::Model* m = fb::GetModel(model);
  for (uint32_t i = 0; i < m->tensors()->size(); ++i)
    ReadTensor(model, i, planned_arena, &tensors[i]);
  for (uint32_t i = 0; i < m->operators()->size(); ++i) ReadOp(model, i, planned_arena, &ops[i]);
}

}  // namespace edgefold::internal
