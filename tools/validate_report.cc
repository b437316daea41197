#include "validate_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "target_run.h"

namespace edgefold::tools {
namespace {

size_t ArgMax(const float* v, size_t n) {
  return static_cast<size_t>(std::max_element(v, v + n) - v);
}

// Largest |a − b|, how many values lie within `tolerance` and how many rows of `row` values
// have the same argmax.
void Compare(const float* a, const float* b, size_t elems, size_t row, double tolerance,
             double* max_abs, size_t* within, size_t* agree) {
  for (size_t i = 0; i < elems; ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - b[i]);
    *max_abs = std::max(*max_abs, d);
    *within += d <= tolerance;
  }
  for (size_t r = 0; r + row <= elems; r += row) *agree += ArgMax(a + r, row) == ArgMax(b + r, row);
}

std::string Field(const std::string& summary, const std::string& key) {
  const size_t at = summary.find(" " + key + "=");
  if (at == std::string::npos) return "";
  const size_t from = at + key.size() + 2;
  return summary.substr(from, summary.find(' ', from) - from);
}

bool CompareLayers(const std::vector<LayerValue>& host, const std::vector<LayerValue>& target,
                   size_t runs, std::vector<LayerReport>* out, std::string* error) {
  if (host.size() != target.size() || runs == 0 || host.size() % runs != 0)
    return *error = "the target tapped " + std::to_string(target.size()) +
                    " op outputs, the host " + std::to_string(host.size()),
           false;
  const size_t per_run = host.size() / runs;
  out->resize(per_run);
  for (size_t k = 0; k < host.size(); ++k) {
    const LayerValue &h = host[k], &t = target[k];
    if (h.tensor != t.tensor || h.values.size() != t.values.size())
      return *error = "op output " + std::to_string(k) + ": the target tapped '" + t.tensor +
                      "', the host '" + h.tensor + "'",
             false;
    LayerReport& l = (*out)[k % per_run];
    l.op_name = h.op_name;
    l.op_type = h.op_type;
    l.tensor = h.tensor;
    l.int8 = h.int8;
    for (size_t i = 0; i < h.values.size(); ++i) {
      const double ref = h.values[i], d = static_cast<double>(t.values[i]) - ref;
      l.max_abs = std::max(l.max_abs, std::fabs(d));
      l.max_ref = std::max(l.max_ref, std::fabs(ref));
      l.signal += ref * ref;
      l.noise += d * d;
    }
  }
  return true;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string JsonNumber(double v) {
  if (std::isnan(v)) return "null";
  if (std::isinf(v)) return v > 0 ? "1e999" : "-1e999";  // json.loads reads them as ±inf
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

double LayerReport::SqnrDb() const {
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return signal == 0 ? -std::numeric_limits<double>::infinity() : 10.0 * std::log10(signal / noise);
}

bool BuildReport(Interpreter& host, const ValidateRun& run, const std::vector<float>& expected,
                 const std::vector<LayerValue>* target_layers, const ValidateLimits& limits,
                 ValidateReport* report, std::string* error) {
  report->target = run.target;
  report->runs = run.runs;
  report->kernels = run.kernels.empty() ? Field(run.summary, "kernels") : run.kernels;
  report->model_bytes =
      run.summary.empty() ? run.model_bytes : SummaryField(run.summary, "model_bytes");
  report->arena_bytes =
      run.summary.empty() ? run.arena_bytes : SummaryField(run.summary, "arena_bytes");
  report->stack_bytes = SummaryField(run.summary, "stack_bytes");
  report->outputs.resize(host.num_outputs());
  size_t run_elems = 0;
  for (size_t o = 0; o < host.num_outputs(); ++o) run_elems += host.output(o).elems;
  for (size_t o = 0, offset = 0; o < host.num_outputs(); offset += host.output(o).elems, ++o) {
    const TensorView v = host.output(o);
    OutputReport& out = report->outputs[o];
    out.name = v.name;
    const size_t row =
        v.rank > 0 && v.shape[v.rank - 1] > 0 ? static_cast<size_t>(v.shape[v.rank - 1]) : 1;
    size_t agree_host = 0, agree_expected = 0, within_host = 0, within_expected = 0;
    out.has_expected = !expected.empty();
    for (size_t r = 0; r < run.runs; ++r) {
      const size_t at = r * run_elems + offset;
      Compare(run.host_outputs.data() + at, run.target_outputs.data() + at, v.elems, row,
              limits.tolerance, &out.max_abs_host, &within_host, &agree_host);
      if (out.has_expected)
        Compare(expected.data() + at, run.target_outputs.data() + at, v.elems, row,
                limits.tolerance, &out.max_abs_expected, &within_expected, &agree_expected);
    }
    if (limits.tolerance >= 0 && run.runs * v.elems > 0) {
      const double values = static_cast<double>(run.runs * v.elems);
      out.within_host = static_cast<double>(within_host) / values;
      out.within_expected = static_cast<double>(within_expected) / values;
    }
    out.rows = run.runs * (v.elems / row);
    if (row > 1 && out.rows > 0) {
      out.top1_host = static_cast<double>(agree_host) / static_cast<double>(out.rows);
      out.top1_expected = static_cast<double>(agree_expected) / static_cast<double>(out.rows);
    } else {
      out.rows = 0;  // a last dim of 1: no argmax to compare
    }
    const bool fail = out.top1_host < limits.min_top1 || out.max_abs_host > limits.max_abs ||
                      out.within_host < limits.min_within ||
                      (out.has_expected && (out.top1_expected < limits.min_top1 ||
                                            out.max_abs_expected > limits.max_abs ||
                                            out.within_expected < limits.min_within));
    if (fail) report->pass = false;
  }
  if (target_layers &&
      !CompareLayers(run.host_layers, *target_layers, run.runs, &report->layers, error))
    return false;
  return true;
}

void PrintReport(const ValidateReport& r, const ValidateLimits& limits) {
  std::printf("target %s (%s kernels), %zu run(s)", r.target.c_str(),
              r.kernels.empty() ? "?" : r.kernels.c_str(), r.runs);
  if (r.arena_bytes >= 0) std::printf(", arena %ld bytes", r.arena_bytes);
  if (r.stack_bytes >= 0) std::printf(", stack high-water %ld bytes", r.stack_bytes);
  std::printf("\n  %-24s %6s %14s %10s %14s %10s\n", "output", "rows", "max abs vs host",
              "top-1 host", "max abs vs exp", "top-1 exp");
  for (const OutputReport& o : r.outputs) {
    char top1_host[16] = "n/a", top1_exp[16] = "-", abs_exp[24] = "-";
    if (o.rows > 0) std::snprintf(top1_host, sizeof top1_host, "%.2f%%", 100 * o.top1_host);
    if (o.has_expected) {
      std::snprintf(abs_exp, sizeof abs_exp, "%.4g", o.max_abs_expected);
      if (o.rows > 0) std::snprintf(top1_exp, sizeof top1_exp, "%.2f%%", 100 * o.top1_expected);
    }
    std::printf("  %-24.24s %6zu %14.4g %10s %14s %10s\n", o.name.c_str(), o.rows, o.max_abs_host,
                top1_host, abs_exp, top1_exp);
    if (limits.tolerance >= 0) {
      std::printf("  %-24.24s within %g: %.2f%% of the values vs host", "", limits.tolerance,
                  100 * o.within_host);
      if (o.has_expected) std::printf(", %.2f%% vs expected", 100 * o.within_expected);
      std::printf("\n");
    }
  }
  if (!r.layers.empty()) {
    std::printf("per layer, target against host (%zu layers):\n", r.layers.size());
    std::printf("  %-32s %-22s %-24s %11s %11s %9s\n", "layer", "type", "tensor", "max abs",
                "max rel", "SQNR dB");
    for (const LayerReport& e : r.layers)
      std::printf("  %-32.32s %-22.22s %-24.24s %11.4g %11.4g %9.2f\n", e.op_name.c_str(),
                  (e.op_type + (e.int8 ? " (int8)" : "")).c_str(), e.tensor.c_str(), e.max_abs,
                  e.max_ref > 0 ? e.max_abs / e.max_ref : 0.0, e.SqnrDb());
  }
  std::printf("%s: top-1 agreement >= %.2f%%", r.pass ? "PASS" : "FAIL", 100 * limits.min_top1);
  if (std::isfinite(limits.max_abs)) std::printf(", max abs error <= %g", limits.max_abs);
  if (limits.tolerance >= 0)
    std::printf(", >= %.2f%% of the values within %g", 100 * limits.min_within, limits.tolerance);
  std::printf("\n");
}

std::string LayersJson(const std::vector<LayerReport>& layers) {
  std::string j = "[";
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerReport& l = layers[i];
    j += std::string(i ? ", " : "") + "{\"layer\": " + JsonString(l.op_name) +
         ", \"type\": " + JsonString(l.op_type) + ", \"tensor\": " + JsonString(l.tensor) +
         ", \"int8\": " + (l.int8 ? "true" : "false") + ", \"max_abs\": " + JsonNumber(l.max_abs) +
         ", \"max_rel\": " + JsonNumber(l.max_ref > 0 ? l.max_abs / l.max_ref : 0.0) +
         ", \"sqnr_db\": " + JsonNumber(l.SqnrDb()) + "}";
  }
  return j + "]";
}

bool WriteReportJson(const std::string& path, const ValidateReport& r, std::string* error) {
  std::string j = "{\"target\": " + JsonString(r.target) +
                  ", \"kernels\": " + JsonString(r.kernels) +
                  ", \"runs\": " + std::to_string(r.runs) +
                  ", \"model_bytes\": " + std::to_string(r.model_bytes) +
                  ", \"arena_bytes\": " + std::to_string(r.arena_bytes) +
                  ", \"stack_bytes\": " + std::to_string(r.stack_bytes) +
                  ", \"pass\": " + (r.pass ? "true" : "false") + ", \"outputs\": [";
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const OutputReport& o = r.outputs[i];
    j +=
        std::string(i ? ", " : "") + "{\"name\": " + JsonString(o.name) +
        ", \"rows\": " + std::to_string(o.rows) +
        ", \"max_abs_vs_host\": " + JsonNumber(o.max_abs_host) +
        ", \"top1_vs_host\": " + (o.rows ? JsonNumber(o.top1_host) : "null") +
        ", \"max_abs_vs_expected\": " + (o.has_expected ? JsonNumber(o.max_abs_expected) : "null") +
        ", \"top1_vs_expected\": " +
        (o.has_expected && o.rows ? JsonNumber(o.top1_expected) : "null") +
        ", \"within_vs_host\": " + JsonNumber(o.within_host) +
        ", \"within_vs_expected\": " + (o.has_expected ? JsonNumber(o.within_expected) : "null") +
        "}";
  }
  j += "], \"layers\": " + LayersJson(r.layers) + "}\n";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return *error = path + ": cannot write", false;
  const bool ok = std::fwrite(j.data(), 1, j.size(), f) == j.size();
  if (std::fclose(f) != 0 || !ok) return *error = path + ": write failed", false;
  return true;
}

void WriteErrorJson(const std::string& path, const std::string& message) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  std::fprintf(f, "{\"error\": %s}\n", JsonString(message).c_str());
  std::fclose(f);
}

}  // namespace edgefold::tools
