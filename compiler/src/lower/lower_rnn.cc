// GRU and LSTM → one Rnn op (schema RnnOptions). W [D, G·H, I] and R [D, G·H, H] are stored
// transposed per direction as the runtime GEMMs' B operands, B [D, 2·G·H] as [D, 2, G·H]
// (zeros when absent). layout = 1 (batch first) becomes Transposes around the op. Outputs the
// graph never reads are not produced, except Y_h, which holds the runtime's hidden state.
#include "kernels/rnn/rnn_sequence.h"
#include "lower/lower_context.h"

namespace edgefold::compiler {
namespace {

struct RnnDims {
  int64_t dirs = 1, gates = 3, hidden = 0, seq = 0, batch = 0, input = 0;
  bool lstm = false, batch_first = false;
  std::string direction;
};

bool Used(const LowerContext& ctx, const ir::Node& n, size_t out) {
  if (out >= n.outputs.size() || n.outputs[out].empty()) return false;
  return ctx.graph().ConsumerCount(n.outputs[out]) > 0 || ctx.graph().IsGraphOutput(n.outputs[out]);
}

// Refuses what the runtime's cell does not compute, naming the node.
void CheckAttributes(const ir::Node& n, bool lstm, int64_t dirs) {
  if (n.Has("activations")) {
    const std::vector<std::string> one = lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                              : std::vector<std::string>{"Sigmoid", "Tanh"};
    std::vector<std::string> want;
    for (int64_t d = 0; d < dirs; ++d) want.insert(want.end(), one.begin(), one.end());
    if (n.attrs.at("activations").strings != want)
      throw CompileError(n.Msg(std::string("only the default activations (") +
                               (lstm ? "Sigmoid, Tanh, Tanh" : "Sigmoid, Tanh") +
                               " per direction) are supported"));
  }
  if (n.Has("clip")) throw CompileError(n.Msg("attribute 'clip' is unsupported"));
  if (lstm && n.Int("input_forget", 0) != 0)
    throw CompileError(n.Msg("attribute 'input_forget'=1 is unsupported"));
  const int64_t layout = n.Int("layout", 0);
  if (layout != 0 && layout != 1) throw CompileError(n.Msg("attribute 'layout' must be 0 or 1"));
}

std::vector<float> Zeros(int64_t count) {
  return std::vector<float>(static_cast<size_t>(count), 0.0f);
}

// w [D, rows, cols] → [D, cols, rows] (per direction Wᵀ or Rᵀ).
std::vector<float> TransposePerDirection(const std::vector<double>& w, int64_t dirs, int64_t rows,
                                         int64_t cols) {
  std::vector<float> t(w.size());
  for (int64_t d = 0; d < dirs; ++d)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        t[(d * cols + c) * rows + r] = static_cast<float>(w[(d * rows + r) * cols + c]);
  return t;
}

const ir::Tensor& ConstInput(LowerContext& ctx, const ir::Node& n, size_t i, const char* what,
                             const std::vector<int64_t>& shape) {
  if (n.In(i).empty() || !ctx.graph().IsConst(n.inputs[i]))
    throw CompileError(n.Msg(std::string("input ") + what + " must be a constant"));
  const ir::Tensor& t = ctx.Ir(n, i);
  if (t.shape != shape)
    throw CompileError(n.Msg(std::string("input ") + what + " is " + ir::ShapeString(t.shape) +
                             ", expected " + ir::ShapeString(shape)));
  return t;
}

// sequence_lens: absent, or a constant whose every entry is the sequence length.
void CheckSequenceLens(LowerContext& ctx, const ir::Node& n, const RnnDims& d) {
  if (n.In(4).empty()) return;
  if (!ctx.graph().IsConst(n.inputs[4]))
    throw CompileError(
        n.Msg("input sequence_lens must be absent or a constant equal to the sequence length"));
  for (double v : ctx.Ir(n, 4).data)
    if (static_cast<int64_t>(v) != d.seq)
      throw CompileError(n.Msg("sequence_lens entry " + std::to_string(static_cast<int64_t>(v)) +
                               " differs from the sequence length " + std::to_string(d.seq) +
                               " (only full-length sequences are supported)"));
}

// An activation in ONNX's batch-first layout as time-major (or the reverse), one Transpose.
int Relayout(LowerContext& ctx, const ir::Node& n, int x, const std::vector<int64_t>& perm,
             const std::string& hint) {
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(ctx.Shape(x)[static_cast<size_t>(p)]);
  const int y = ctx.NewTensor(hint, shape, false, {});
  fb::TransposeOptionsT opt;
  opt.perm = ToInt32s(n, perm, "perm");
  ctx.AddOp(fb::OpType::Transpose, n, {x}, {y}).options.Set(std::move(opt));
  return y;
}

// The cell, direction and sizes from the attributes, X (tensor *x) and W's shape.
RnnDims ReadDims(LowerContext& ctx, const ir::Node& n, int* x) {
  RnnDims d;
  d.lstm = n.op == "LSTM";
  d.direction = n.Str("direction", "forward");
  if (d.direction != "forward" && d.direction != "reverse" && d.direction != "bidirectional")
    throw CompileError(n.Msg("attribute 'direction' has invalid value '" + d.direction + "'"));
  d.dirs = d.direction == "bidirectional" ? 2 : 1;
  d.gates = d.lstm ? 4 : 3;
  CheckAttributes(n, d.lstm, d.dirs);
  d.batch_first = n.Int("layout", 0) == 1;
  *x = ctx.Tensor(n, n.In(0));
  const std::vector<int64_t> xs = ctx.Shape(*x);
  if (xs.size() != 3) throw CompileError(n.Msg("X must be rank 3, is " + ir::ShapeString(xs)));
  d.seq = d.batch_first ? xs[1] : xs[0];
  d.batch = d.batch_first ? xs[0] : xs[1];
  d.input = xs[2];
  const int64_t gh = [&] {
    if (n.In(1).empty()) throw CompileError(n.Msg("missing input W"));
    const std::vector<int64_t>& ws = ctx.Ir(n, 1).shape;
    return ws.size() == 3 ? ws[1] : -1;
  }();
  d.hidden = n.Int("hidden_size", gh > 0 ? gh / d.gates : 0);
  if (d.hidden < 1 || gh != d.gates * d.hidden)
    throw CompileError(n.Msg("W " + ir::ShapeString(ctx.Ir(n, 1).shape) + " does not hold " +
                             std::to_string(d.gates) + " gates of hidden_size " +
                             std::to_string(d.hidden)));
  return d;
}

// The op's inputs: X time-major, Wᵀ and Rᵀ per direction, B, then initial_h and initial_c
// (trailing absent ones dropped).
std::vector<int> PackInputs(LowerContext& ctx, const ir::Node& n, const RnnDims& d, int x) {
  const int64_t G = d.gates * d.hidden;
  const ir::Tensor& w = ConstInput(ctx, n, 1, "W", {d.dirs, G, d.input});
  const ir::Tensor& r = ConstInput(ctx, n, 2, "R", {d.dirs, G, d.hidden});
  std::vector<float> bias = Zeros(d.dirs * 2 * G);
  if (!n.In(3).empty()) {
    const ir::Tensor& b = ConstInput(ctx, n, 3, "B", {d.dirs, 2 * G});
    bias.assign(b.data.begin(), b.data.end());
  }
  CheckSequenceLens(ctx, n, d);
  if (!n.In(7).empty()) throw CompileError(n.Msg("input P (peepholes) is unsupported"));
  if (d.batch_first) x = Relayout(ctx, n, x, {1, 0, 2}, n.name + "_x_time_major");
  const std::vector<int64_t> state = {d.dirs, d.batch, d.hidden};
  std::vector<int> inputs = {x,
                             ctx.NewTensor(n.In(1) + "_packed", {d.dirs, d.input, G}, true,
                                           TransposePerDirection(w.data, d.dirs, G, d.input)),
                             ctx.NewTensor(n.In(2) + "_packed", {d.dirs, d.hidden, G}, true,
                                           TransposePerDirection(r.data, d.dirs, G, d.hidden)),
                             ctx.NewTensor(n.name + "_bias", {d.dirs, 2, G}, true, bias)};
  for (size_t slot : {size_t{5}, size_t{6}}) {  // initial_h, initial_c
    if (slot == 6 && !d.lstm) break;
    int t = ctx.Tensor(n, n.In(slot));
    if (t >= 0 && d.batch_first) t = Relayout(ctx, n, t, {1, 0, 2}, n.name + "_state_time_major");
    if (t >= 0 && ctx.Shape(t) != state)
      throw CompileError(n.Msg(std::string(slot == 5 ? "initial_h" : "initial_c") + " is " +
                               ir::ShapeString(ctx.Shape(t)) + ", expected " +
                               ir::ShapeString(state)));
    inputs.push_back(t);
  }
  while (inputs.back() < 0) inputs.pop_back();
  return inputs;
}

fb::RnnOptionsT MakeOptions(const LowerContext& ctx, const ir::Node& n, const RnnDims& d) {
  fb::RnnOptionsT opt;
  opt.cell = d.lstm ? fb::RnnCell::Lstm : fb::RnnCell::Gru;
  opt.direction = d.dirs == 2 ? fb::RnnDirection::Bidirectional
                              : (d.direction == "reverse" ? fb::RnnDirection::Reverse
                                                          : fb::RnnDirection::Forward);
  opt.hidden_size = ToInt32(n, d.hidden, "hidden_size");
  opt.linear_before_reset = !d.lstm && n.Int("linear_before_reset", 0) != 0;
  opt.output_sequence = Used(ctx, n, 0);
  opt.output_cell = d.lstm && Used(ctx, n, 2);
  return opt;
}

// The op's outputs (time-major: Y_h, then Y and Y_c when read) and, for batch-first graphs,
// the ONNX tensors a Transpose after the op writes (after[i] < 0: none).
struct RnnOutputs {
  struct Out {
    size_t slot;
    std::vector<int64_t> shape, perm;
  };
  std::vector<Out> outs;
  std::vector<int> op_outputs, after;
};

RnnOutputs PlanOutputs(LowerContext& ctx, const ir::Node& n, const RnnDims& d,
                       const fb::RnnOptionsT& opt) {
  const std::vector<int64_t> state = {d.dirs, d.batch, d.hidden};
  RnnOutputs r;
  r.outs = {{1, state, {1, 0, 2}}};
  if (opt.output_sequence) r.outs.push_back({0, {d.seq, d.dirs, d.batch, d.hidden}, {2, 0, 1, 3}});
  if (opt.output_cell) r.outs.push_back({2, state, {1, 0, 2}});
  for (const RnnOutputs::Out& o : r.outs) {
    if (!Used(ctx, n, o.slot) || d.batch_first) {
      r.op_outputs.push_back(
          ctx.NewTensor(n.name + "_out" + std::to_string(o.slot), o.shape, false, {}));
      r.after.push_back(Used(ctx, n, o.slot) ? ctx.Tensor(n, n.outputs[o.slot]) : -1);
    } else {
      r.op_outputs.push_back(ctx.Tensor(n, n.outputs[o.slot]));
      r.after.push_back(-1);
    }
    const int onnx_out = r.after.back() >= 0 ? r.after.back() : r.op_outputs.back();
    std::vector<int64_t> want = o.shape;
    if (d.batch_first)
      for (size_t k = 0; k < want.size(); ++k) want[k] = o.shape[static_cast<size_t>(o.perm[k])];
    if (Used(ctx, n, o.slot) && ctx.Shape(onnx_out) != want)
      throw CompileError(n.Msg("output " + std::to_string(o.slot) + " is " +
                               ir::ShapeString(ctx.Shape(onnx_out)) + ", expected " +
                               ir::ShapeString(want)));
  }
  return r;
}

}  // namespace

void LowerRnn(LowerContext& ctx, const ir::Node& n) {
  int x = -1;
  const RnnDims d = ReadDims(ctx, n, &x);
  const std::vector<int> inputs = PackInputs(ctx, n, d, x);
  // Outputs: the runtime's time-major tensors; batch-first ones are Transposed after the op.
  fb::RnnOptionsT opt = MakeOptions(ctx, n, d);
  const RnnOutputs out = PlanOutputs(ctx, n, d, opt);
  kernels::RnnShape s;
  s.seq = static_cast<size_t>(d.seq);
  s.batch = static_cast<size_t>(d.batch);
  s.input = static_cast<size_t>(d.input);
  s.hidden = static_cast<size_t>(d.hidden);
  s.lstm = d.lstm;
  s.linear_before_reset = opt.linear_before_reset;
  fb::OperatorT& op = ctx.AddOp(fb::OpType::Rnn, n, inputs, out.op_outputs);
  op.options.Set(std::move(opt));
  op.scratch_bytes = kernels::RnnScratchBytes(s);
  for (size_t i = 0; i < out.outs.size(); ++i) {
    if (out.after[i] < 0) continue;
    fb::TransposeOptionsT t;
    t.perm = ToInt32s(n, out.outs[i].perm, "perm");
    ctx.AddOp(fb::OpType::Transpose, n, {out.op_outputs[i]}, {out.after[i]})
        .options.Set(std::move(t));
  }
}

}  // namespace edgefold::compiler
