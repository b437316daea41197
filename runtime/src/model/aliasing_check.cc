// The aliasing check of CheckModel (model_reader.cc): an op never writes over what it reads.
#include "model/aliasing_check.h"

#include "base/contiguous_slice.h"

namespace edgefold::internal {
namespace {

// Bytes [begin, end) a planned tensor occupies in the arena; empty for constants and absent inputs.
struct Region {
  uint64_t begin = 0, end = 0;
};

Region PlannedRegion(const fb::Model* m, int32_t tensor) {
  if (tensor < 0) return Region();
  const fb::Tensor* t = m->tensors()->Get(static_cast<uint32_t>(tensor));
  if (t->arena_offset() < 0) return Region();
  const uint64_t begin = static_cast<uint64_t>(t->arena_offset());
  return Region{begin, begin + t->bytes()};
}

bool Overlap(Region a, Region b) { return a.begin < b.end && b.begin < a.end; }

// Whether input `pos` of op and its output `out` overlap as one of the views the compiler plans
// (compiler plan/tensor_views.h), which those ops recognise and do not copy: a Reshape's output
// on exactly its input; a contiguous Slice's output on exactly the run it selects; an input of a
// Concat with one outer block on exactly its block of the output.
bool IsPlannedView(const fb::Operator* op, const fb::Model* m, uint32_t pos, int32_t out) {
  const int32_t in = op->inputs()->Get(pos);
  const Region ri = PlannedRegion(m, in), ro = PlannedRegion(m, out);
  const fb::Tensor* tin = m->tensors()->Get(static_cast<uint32_t>(in));
  const fb::Tensor* tout = m->tensors()->Get(static_cast<uint32_t>(out));
  if (ri.begin == ri.end || ro.begin == ro.end || tin->dtype() != tout->dtype()) return false;
  switch (op->type()) {
    case fb::OpType::Reshape:
      return pos == 0 && ri.begin == ro.begin && ri.end == ro.end;
    case fb::OpType::Slice: {
      const fb::SliceOptions* o = op->options_as_SliceOptions();
      const size_t rank = tin->shape()->size();
      if (pos != 0 || o == nullptr || o->starts() == nullptr || o->steps() == nullptr ||
          tout->shape()->size() != rank || o->starts()->size() != rank ||
          o->steps()->size() != rank)
        return false;
      const int64_t start =
          ContiguousSliceStart(rank, *tin->shape(), *tout->shape(), *o->starts(), *o->steps());
      // CheckTensor has matched bytes to shape × dtype.
      return start >= 0 &&
             ro.begin == ri.begin + static_cast<uint64_t>(start) * DTypeBytes(tin->dtype()) &&
             ro.end <= ri.end;
    }
    case fb::OpType::Concat: {
      const fb::ConcatOptions* o = op->options_as_ConcatOptions();
      if (o == nullptr || o->axis() < 0 ||
          static_cast<uint32_t>(o->axis()) >= tout->shape()->size())
        return false;
      for (int32_t a = 0; a < o->axis(); ++a)
        if (tout->shape()->Get(static_cast<uint32_t>(a)) != 1) return false;
      uint64_t prefix = 0;
      for (uint32_t i = 0; i < pos; ++i) {
        const int32_t t = op->inputs()->Get(i);
        if (t < 0) return false;
        prefix += m->tensors()->Get(static_cast<uint32_t>(t))->bytes();
      }
      return ri.begin == ro.begin + prefix && ri.end <= ro.end;
    }
    default:
      return false;
  }
}

}  // namespace

// An op must never write over what it reads: each output's arena bytes are disjoint from every
// input's (but for the planned views above), from every other output's and from its scratch
// (kernels read and write in any order).
Status CheckNoAliasing(const fb::Operator* op, const fb::Model* m, const char* name,
                       ErrorReporter& errors) {
  const Region scratch =
      op->scratch_bytes() > 0
          ? Region{static_cast<uint64_t>(op->scratch_offset()),
                   static_cast<uint64_t>(op->scratch_offset()) + op->scratch_bytes()}
          : Region();
  const auto* outs = op->outputs();
  for (uint32_t o = 0; o < outs->size(); ++o) {
    const int32_t out = outs->Get(o);
    const Region ro = PlannedRegion(m, out);
    for (uint32_t pos = 0; pos < op->inputs()->size(); ++pos) {
      const int32_t in = op->inputs()->Get(pos);
      if (in == out || (Overlap(ro, PlannedRegion(m, in)) && !IsPlannedView(op, m, pos, out))) {
        errors.Report("op '%s': output '%s' is also (or overlaps) its input '%s'", name,
                      TensorName(m, out), TensorName(m, in));
        return Status::kInvalidModel;
      }
    }
    for (uint32_t p = 0; p < o; ++p) {
      if (outs->Get(p) == out || Overlap(ro, PlannedRegion(m, outs->Get(p)))) {
        errors.Report("op '%s': outputs '%s' and '%s' share arena bytes", name,
                      TensorName(m, outs->Get(p)), TensorName(m, out));
        return Status::kInvalidModel;
      }
    }
    if (Overlap(ro, scratch)) {
      errors.Report("op '%s': output '%s' overlaps the op's scratch", name, TensorName(m, out));
      return Status::kInvalidModel;
    }
  }
  for (int32_t in : *op->inputs()) {
    if (Overlap(PlannedRegion(m, in), scratch)) {
      errors.Report("op '%s': input '%s' overlaps the op's scratch", name, TensorName(m, in));
      return Status::kInvalidModel;
    }
  }
  return Status::kOk;
}

}  // namespace edgefold::internal
