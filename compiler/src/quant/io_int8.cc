#include "quant/io_int8.h"

#include <algorithm>

namespace edgefold::compiler::quant {
namespace {

std::vector<size_t> Readers(const LoweredModel& m, int t) {
  std::vector<size_t> ops;
  for (size_t i = 0; i < m.ops.size(); ++i)
    if (std::find(m.ops[i].inputs.begin(), m.ops[i].inputs.end(), t) != m.ops[i].inputs.end())
      ops.push_back(i);
  return ops;
}

int Producer(const LoweredModel& m, int t) {
  for (size_t i = 0; i < m.ops.size(); ++i)
    if (std::find(m.ops[i].outputs.begin(), m.ops[i].outputs.end(), t) != m.ops[i].outputs.end())
      return static_cast<int>(i);
  return -1;
}

std::string OpRef(const fb::OperatorT& op) {
  return "'" + op.name + "' (" + fb::EnumNameOpType(op.type) + ")";
}

// The input's replacement (its Quantize's int8 output), or -1 with `why` set.
int Int8Input(const LoweredModel& m, int t, std::vector<bool>* removed, std::string* why) {
  const std::vector<size_t> readers = Readers(m, t);
  for (size_t r : readers)
    if (m.ops[r].type != fb::OpType::Quantize) {
      *why = "read by the float op " + OpRef(m.ops[r]);
      return -1;
    }
  if (readers.size() != 1) {
    *why = readers.empty() ? "no op reads it" : "read by more than one Quantize op";
    return -1;
  }
  (*removed)[readers[0]] = true;
  return m.ops[readers[0]].outputs[0];
}

// The output's replacement (its Dequantize's int8 input), or -1 with `why` set.
int Int8Output(const LoweredModel& m, int t, std::vector<bool>* removed, std::string* why) {
  const int p = Producer(m, t);
  if (p < 0) {
    *why = "no op writes it";
    return -1;
  }
  const fb::OperatorT& op = m.ops[static_cast<size_t>(p)];
  if (op.type != fb::OpType::Dequantize) {
    *why = "written by the float op " + OpRef(op);
    return -1;
  }
  if (Readers(m, t).empty())
    (*removed)[static_cast<size_t>(p)] = true;  // else a float op still needs it
  return op.inputs[0];
}

QuantIoReport Describe(const LoweredModel& m, int t, bool is_input, const std::string& why) {
  const LoweredTensor& lt = m.tensors[static_cast<size_t>(t)];
  QuantIoReport r;
  r.name = lt.name;
  r.is_input = is_input;
  r.int8 = lt.dtype == fb::DType::Int8;
  if (r.int8) {
    r.scale = lt.scales[0];
    r.zero_point = lt.zero_points[0];
  }
  r.why_float = why;
  return r;
}

}  // namespace

std::vector<QuantIoReport> MakeIoInt8(LoweredModel* m, bool io_int8, int* removed_ops) {
  std::vector<bool> removed(m->ops.size(), false);
  std::vector<std::string> why(m->inputs.size() + m->outputs.size());
  if (io_int8) {
    for (size_t i = 0; i < m->inputs.size(); ++i) {
      const int t = m->inputs[i];
      const int q = Int8Input(*m, t, &removed, &why[i]);
      if (q < 0) continue;
      m->tensors[static_cast<size_t>(q)].name = m->tensors[static_cast<size_t>(t)].name;
      m->inputs[i] = q;
    }
    for (size_t o = 0; o < m->outputs.size(); ++o) {
      const int q = Int8Output(*m, m->outputs[o], &removed, &why[m->inputs.size() + o]);
      if (q >= 0) m->outputs[o] = q;
    }
  }
  std::vector<fb::OperatorT> kept;
  for (size_t i = 0; i < m->ops.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(m->ops[i]));
  *removed_ops = static_cast<int>(m->ops.size() - kept.size());
  m->ops = std::move(kept);
  std::vector<QuantIoReport> report;
  for (size_t i = 0; i < m->inputs.size(); ++i)
    report.push_back(Describe(*m, m->inputs[i], true, why[i]));
  for (size_t o = 0; o < m->outputs.size(); ++o)
    report.push_back(Describe(*m, m->outputs[o], false, why[m->inputs.size() + o]));
  return report;
}

}  // namespace edgefold::compiler::quant
