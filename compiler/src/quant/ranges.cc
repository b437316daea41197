#include "quant/ranges.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "quant/mse_clip.h"

namespace edgefold::compiler::quant {
namespace {

// Percentiles are taken over at most this many values per tensor (every k-th value kept); the
// MSE search over fewer (it sorts them).
constexpr size_t kMaxKeptValues = size_t{1} << 20;
constexpr size_t kMaxKeptValuesMse = size_t{1} << 18;

struct Observer {
  Range* range;
  std::vector<float> kept;
  size_t stride = 1, seen = 0;

  void Add(const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const double v = x[i];
      if (!range->observed) {
        range->min = range->max = v;
        range->observed = true;
      }
      range->min = std::min(range->min, v);
      range->max = std::max(range->max, v);
      if (seen++ % stride == 0) kept.push_back(x[i]);
    }
  }

  void Finish(double percentile, bool mse) {
    range->lo = range->min;
    range->hi = range->max;
    if (mse) {
      const ClipRange c = MseClip(kept, range->min, range->max);
      range->lo = c.lo;
      range->hi = c.hi;
      return;
    }
    if (percentile >= 100.0 || kept.empty()) return;
    const double tail = (100.0 - percentile) / 100.0;
    const auto at = [&](double q) {
      const size_t k =
          std::min(kept.size() - 1, static_cast<size_t>(q * static_cast<double>(kept.size() - 1)));
      std::nth_element(kept.begin(), kept.begin() + static_cast<long>(k), kept.end());
      return static_cast<double>(kept[k]);
    };
    range->lo = at(tail);
    range->hi = at(1.0 - tail);
  }
};

}  // namespace

std::vector<Range> ObserveRanges(const LoweredModel& model, const Samples& samples,
                                 double percentile, bool mse, const std::string& name) {
  std::vector<Range> ranges(model.tensors.size());
  std::vector<int> probes;
  for (const fb::OperatorT& op : model.ops)
    for (int out : op.outputs)
      if (out >= 0 && !model.tensors[static_cast<size_t>(out)].is_const) probes.push_back(out);
  const int input = model.inputs.at(0);
  std::vector<Observer> observers(model.tensors.size());
  for (size_t t = 0; t < observers.size(); ++t) {
    observers[t].range = &ranges[t];
    const size_t total = samples.count * model.tensors[t].bytes / sizeof(float);
    if (mse)
      observers[t].stride = std::max<size_t>(1, total / kMaxKeptValuesMse);
    else if (percentile < 100.0)
      observers[t].stride = std::max<size_t>(1, total / kMaxKeptValues);
  }
  observers[static_cast<size_t>(input)].Add(samples.data, samples.count * samples.run_elems);
  const std::string error =
      RunSamples(model, probes, samples, [&](size_t, size_t o, const float* x, size_t n) {
        observers[static_cast<size_t>(probes[o])].Add(x, n);
      });
  if (!error.empty()) throw CompileError("model '" + name + "': calibration run failed: " + error);
  for (Observer& o : observers)
    if (o.range->observed) o.Finish(percentile, mse);
  return ranges;
}

}  // namespace edgefold::compiler::quant
