#include <cstring>
#include <new>

#include "ops/conv_scratch.h"
#include "training/trainer_state.h"

namespace edgefold::internal {
namespace {

constexpr size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

// Hands out consecutive aligned regions; with a null base it only counts bytes.
class Bump {
 public:
  explicit Bump(uint8_t* base) : base_(base) {}
  template <class T>
  T* Take(size_t n, size_t align = alignof(T)) {
    offset_ = AlignUp(offset_, align);
    T* p = base_ ? reinterpret_cast<T*>(base_ + offset_) : nullptr;
    offset_ += n * sizeof(T);
    return p;
  }
  float* Floats(size_t n) { return Take<float>(n, kArenaAlignment); }
  size_t used() const { return AlignUp(offset_, kArenaAlignment); }

 private:
  uint8_t* base_;
  size_t offset_ = 0;
};

// Sizing passes read planned tensors against this base; their data pointers are never used.
alignas(64) uint8_t g_sizing_base[64];

}  // namespace

TensorInfo GraphView::tensor(size_t i) const {
  if (tensors_ != nullptr) return tensors_[i];
  TensorInfo t;
  ReadTensor(model_, i, g_sizing_base, &t);
  return t;
}

OpDesc GraphView::op(size_t i) const {
  if (ops_ != nullptr) return ops_[i];
  OpDesc d;
  ReadOp(model_, i, g_sizing_base, &d);
  return d;
}

int32_t FindHeadOp(const GraphView& g) {
  int32_t head = -1;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const OpKind kind = g.op(i).kind;
    if (kind == OpKind::kConv || kind == OpKind::kGemm) head = static_cast<int32_t>(i);
  }
  return head;
}

ParamRole RoleOf(const GraphView& g, int32_t tensor, Trainable trainable, int32_t head_op) {
  ParamRole role = ParamRole::kNone;
  for (size_t j = 0; j < g.num_ops(); ++j) {
    const OpDesc op = g.op(j);
    for (uint32_t s = 0; s < op.num_inputs; ++s) {
      if (op.inputs[s] != tensor) continue;
      ParamRole r = ParamRole::kNone;
      if (op.kind == OpKind::kBatchNorm) {
        r = (s == 1 || s == 2) ? ParamRole::kTrainable : (s >= 3) ? ParamRole::kStatistic : r;
      } else if ((op.kind == OpKind::kConv || op.kind == OpKind::kGemm) && s >= 1) {
        const bool head = static_cast<int32_t>(j) == head_op;
        if (trainable == Trainable::kAll || (trainable == Trainable::kBatchNormAndHead && head))
          r = ParamRole::kTrainable;
      }
      if (r > role) role = r;
    }
  }
  return role;
}

int32_t FoldableProducer(const GraphView& g, size_t bn_op) {
  const int32_t x = g.op(bn_op).inputs[0];
  for (size_t i = 0; i < g.summary_outputs(); ++i)
    if (g.output(i) == x) return -1;
  int32_t producer = -1;
  for (size_t j = 0; j < g.num_ops(); ++j) {
    const OpDesc op = g.op(j);
    if (op.outputs[0] == x) producer = static_cast<int32_t>(j);
    for (uint32_t k = 0; k < op.num_inputs; ++k)
      if (op.inputs[k] == x && j != bn_op) return -1;   // another consumer needs the unfolded value
  }
  if (producer < 0) return -1;
  const OpDesc p = g.op(static_cast<size_t>(producer));
  const bool conv = p.kind == OpKind::kConv && p.options.conv.act.kind == kernels::ActKind::kNone;
  const bool gemm = p.kind == OpKind::kGemm && p.options.act.kind == kernels::ActKind::kNone;
  if ((!conv && !gemm) || !g.tensor(static_cast<size_t>(p.inputs[1])).is_constant) return -1;
  return producer;
}

size_t LayoutTrainer(const uint8_t* model, const ModelSummary& s, const TrainOptions& t,
                     uint8_t* arena, Trainer::State** out) {
  Bump bump(arena);
  Trainer::State* st = bump.Take<Trainer::State>(1);
  // Two extra tensors per BatchNorm: the folded W' and b' of its producer.
  size_t bn_count = 0;
  for (size_t j = 0; j < s.num_ops; ++j) {
    OpDesc d;
    ReadOp(model, j, g_sizing_base, &d);
    bn_count += d.kind == OpKind::kBatchNorm;
  }
  TensorInfo* tensors = bump.Take<TensorInfo>(s.num_tensors + 2 * bn_count);
  OpDesc* ops = bump.Take<OpDesc>(s.num_ops);
  const OpKernel** op_kernels = bump.Take<const OpKernel*>(s.num_ops);
  const OpDesc** exec = bump.Take<const OpDesc*>(s.num_ops);
  float** grads = bump.Take<float*>(s.num_tensors);
  if (arena != nullptr) {
    st = new (st) Trainer::State(nullptr, nullptr);
    st->summary = s;
    st->options = t;
    st->tensors = tensors;
    st->ops = ops;
    st->op_kernels = op_kernels;
    st->grads = grads;
    ReadModel(model, g_sizing_base, tensors, ops);   // planned pointers are replaced below
  }
  const GraphView g(model, s, arena ? tensors : nullptr, arena ? ops : nullptr);
  const int32_t head = FindHeadOp(g);

  size_t num_params = 0, num_bns = 0, max_elems = 1, max_scratch = 0;
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const TensorInfo ti = g.tensor(i);
    if (!ti.is_constant && ti.elems > max_elems) max_elems = ti.elems;
    if (ti.is_constant && RoleOf(g, static_cast<int32_t>(i), t.trainable, head) != ParamRole::kNone)
      ++num_params;
  }
  for (size_t j = 0; j < s.num_ops; ++j) {
    const OpDesc op = g.op(j);
    if (op.kind == OpKind::kBatchNorm) ++num_bns;
    if (op.scratch_bytes > max_scratch) max_scratch = op.scratch_bytes;
  }
  Param* params = bump.Take<Param>(num_params);
  BnState* bns = bump.Take<BnState>(num_bns);

  // Activations are all kept (backward reads them); every planned tensor but the graph input
  // gets a gradient.
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const TensorInfo ti = g.tensor(i);
    if (ti.is_constant) continue;
    float* act = bump.Floats(ti.elems);
    const bool is_input = static_cast<int32_t>(i) == s.inputs[0];
    float* grad = is_input ? nullptr : bump.Floats(ti.elems);
    if (arena != nullptr) {
      tensors[i].data = act;
      grads[i] = grad;
    }
  }
  size_t p = 0;
  for (size_t i = 0; i < s.num_tensors; ++i) {
    const TensorInfo ti = g.tensor(i);
    const ParamRole role = ti.is_constant ? RoleOf(g, static_cast<int32_t>(i), t.trainable, head)
                                          : ParamRole::kNone;
    if (role == ParamRole::kNone) {
      if (arena != nullptr && ti.is_constant) grads[i] = nullptr;
      continue;
    }
    float* copy = bump.Floats(ti.elems);
    float* grad = (role == ParamRole::kTrainable) ? bump.Floats(ti.elems) : nullptr;
    float* velocity = (role == ParamRole::kTrainable) ? bump.Floats(ti.elems) : nullptr;
    if (arena != nullptr) {
      std::memcpy(copy, tensors[i].data, ti.elems * sizeof(float));
      tensors[i].data = copy;
      grads[i] = grad;
      if (velocity != nullptr) std::memset(velocity, 0, ti.elems * sizeof(float));
      params[p] = Param{static_cast<int32_t>(i), copy, grad, velocity, ti.elems,
                        role == ParamRole::kTrainable};
    }
    ++p;
  }
  size_t b = 0;
  for (size_t j = 0; j < s.num_ops; ++j) {
    const OpDesc op = g.op(j);
    if (op.kind != OpKind::kBatchNorm) continue;
    const TensorInfo x = g.tensor(static_cast<size_t>(op.inputs[0]));
    const size_t channels = (x.rank >= 2) ? static_cast<size_t>(x.shape[1]) : 1;
    BnState bn;
    bn.op = static_cast<int32_t>(j);
    bn.xhat = bump.Floats(x.elems);
    bn.mean = bump.Floats(channels);
    bn.var = bump.Floats(channels);
    bn.inv_std = bump.Floats(channels);
    bn.channels = channels;
    bn.batch = (x.rank >= 1) ? static_cast<size_t>(x.shape[0]) : 1;
    bn.spatial = (channels > 0 && bn.batch > 0) ? x.elems / (channels * bn.batch) : 0;
    bn.producer = FoldableProducer(g, j);
    if (bn.producer >= 0) {
      const TensorInfo w = g.tensor(static_cast<size_t>(g.op(static_cast<size_t>(bn.producer)).inputs[1]));
      bn.folded = bump.Take<OpDesc>(1);
      bn.folded_io = bump.Take<int32_t>(4);
      float* folded_w = bump.Floats(w.elems);
      float* folded_b = bump.Floats(channels);
      if (arena != nullptr) {
        const int32_t wt = static_cast<int32_t>(s.num_tensors + 2 * b), bt = wt + 1;
        tensors[wt] = w;
        tensors[wt].data = folded_w;
        tensors[wt].name = "folded weights";
        tensors[bt] = TensorInfo();
        tensors[bt].name = "folded bias";
        tensors[bt].rank = 1;
        tensors[bt].shape[0] = static_cast<int32_t>(channels);
        tensors[bt].elems = channels;
        tensors[bt].data = folded_b;
        tensors[bt].is_constant = true;
        const OpDesc& p = ops[bn.producer];
        const int32_t io[4] = {p.inputs[0], wt, bt, op.outputs[0]};
        std::memcpy(bn.folded_io, io, sizeof(io));
      }
    }
    if (arena != nullptr) bns[b] = bn;
    ++b;
  }
  const size_t scratch_floats = (max_scratch + sizeof(float) - 1) / sizeof(float);
  float* col = bump.Floats(scratch_floats);
  float* dcol = bump.Floats(scratch_floats);
  float* temp = bump.Floats(max_elems);
  if (arena != nullptr) {
    for (size_t j = 0; j < s.num_ops; ++j)
      if (ops[j].scratch_bytes > 0) ops[j].scratch = col;
    st->params = params;
    st->num_params = num_params;
    st->bns = bns;
    st->num_bns = num_bns;
    st->exec = exec;
    st->col = col;
    st->dcol = dcol;
    st->temp = temp;
    *out = st;
  }
  return bump.used();
}

}  // namespace edgefold::internal
