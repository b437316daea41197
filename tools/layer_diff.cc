#include "layer_diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "edgefold_compiler/compiler.h"

namespace edgefold::tools {
namespace {

constexpr double kSqnrCapDb = 100.0;
constexpr double kFirstLayerFloorDb = 20.0;

// ref: the reference's values, got: the .efb's, of one layer in one run.
void AddError(const std::vector<float>& ref, const std::vector<float>& got, LayerReport* l) {
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(got[i]) - ref[i];
    l->max_abs = std::max(l->max_abs, std::fabs(d));
    l->max_ref = std::max(l->max_ref, std::fabs(static_cast<double>(ref[i])));
    l->signal += static_cast<double>(ref[i]) * ref[i];
    l->noise += d * d;
  }
}

// The layers of the first run: the .efb's op outputs with a reference tensor of their name.
void MatchLayers(const std::map<std::string, const LayerValue*>& want,
                 const std::vector<LayerValue>& got, LayerDiff* out) {
  for (const LayerValue& g : got) {
    auto it = want.find(g.tensor);
    if (it == want.end() || it->second->values.size() != g.values.size()) {
      ++out->unmatched;
      continue;
    }
    LayerReport l;
    l.op_name = g.op_name;
    l.op_type = g.op_type;
    l.tensor = g.tensor;
    l.int8 = g.int8;
    out->layers.push_back(l);
  }
}

int FirstJump(const std::vector<LayerReport>& layers, double jump_db) {
  double floor = kSqnrCapDb;
  for (size_t i = 0; i < layers.size(); ++i) {
    const double db = std::min(layers[i].SqnrDb(), kSqnrCapDb);
    if (i == 0 ? db < kFirstLayerFloorDb : db < floor - jump_db) return static_cast<int>(i);
    floor = std::min(floor, db);
  }
  return -1;
}

}  // namespace

bool LoadDiffInputs(const std::vector<std::string>& paths, Interpreter& efb,
                    std::vector<NpyArray>* inputs, size_t* runs, std::string* error) {
  if (paths.size() != efb.num_inputs())
    return *error = "the model has " + std::to_string(efb.num_inputs()) + " input(s), got " +
                    std::to_string(paths.size()) + " input file(s)",
           false;
  inputs->resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    NpyArray& a = (*inputs)[i];
    if (!ReadNpy(paths[i], &a, error)) return false;
    const size_t elems = efb.input(i).elems, have = a.f32.size();
    if (a.dtype != NpyDType::kFloat32 || elems == 0 || have == 0 || have % elems != 0)
      return *error = paths[i] + ": want float32 data, a multiple of input '" + efb.input(i).name +
                      "' (" + std::to_string(elems) + " values)",
             false;
    if (i > 0 && have / elems != *runs)
      return *error = paths[i] + ": another number of slices than input 0", false;
    *runs = have / elems;
  }
  return true;
}

bool SetDiffInputs(Interpreter& interp, const std::vector<NpyArray>& inputs, size_t run,
                   std::string* error) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t elems = interp.input(i).elems;
    const float* x = inputs[i].f32.data() + run * elems;
    const Status st = interp.input(i).dtype == DType::kInt8 ? interp.QuantizeInput(i, x, elems)
                                                            : interp.SetInput(i, x, elems);
    if (st != Status::kOk)
      return *error = std::string("input '") + interp.input(i).name + "': " + StatusName(st), false;
  }
  return true;
}

bool OpenFloatReference(const std::string& onnx_path, LayerTaps* ref, std::string* error) {
  compiler::CompileOptions o;
  o.fold_batchnorm = false;
  o.fuse_activations = false;
  o.winograd = false;
  o.transposed_weights = false;
  o.verify = false;
  o.expansion_band_kb = 0;
  o.qdq_as_float = true;  // the table then shows the quantization's error
  compiler::CompileResult r = compiler::CompileFile(onnx_path, o);
  if (!r.ok) return *error = r.error, false;
  return ref->Open(r.model, onnx_path + " (reference)", error);
}

DiffReference FloatReference(LayerTaps& ref, const std::vector<NpyArray>& inputs) {
  return [&ref, &inputs](size_t run, std::vector<LayerValue>* want, std::string* error) {
    return SetDiffInputs(ref.interpreter(), inputs, run, error) && ref.Run(want, error);
  };
}

bool CompareLayers(const DiffReference& reference, LayerTaps& efb,
                   const std::vector<NpyArray>& inputs, size_t runs, double jump_db, LayerDiff* out,
                   std::string* error) {
  out->runs = runs;
  for (size_t run = 0; run < runs; ++run) {
    std::vector<LayerValue> want, got;
    if (!reference(run, &want, error) || !SetDiffInputs(efb.interpreter(), inputs, run, error) ||
        !efb.Run(&got, error))
      return false;
    std::map<std::string, const LayerValue*> want_by_name, got_by_name;
    for (const LayerValue& v : want) want_by_name[v.tensor] = &v;
    for (const LayerValue& g : got) got_by_name[g.tensor] = &g;
    if (run == 0) MatchLayers(want_by_name, got, out);
    for (LayerReport& l : out->layers)
      AddError(want_by_name.at(l.tensor)->values, got_by_name.at(l.tensor)->values, &l);
  }
  out->first_jump = FirstJump(out->layers, jump_db);
  return true;
}

bool DiffLayers(const std::string& onnx_path, const std::vector<uint8_t>& efb_bytes,
                const std::vector<std::string>& input_paths, double jump_db, LayerDiff* out,
                std::string* error) {
  LayerTaps ref, efb;
  std::vector<NpyArray> inputs;
  size_t runs = 0;
  return efb.Open(efb_bytes, "the .efb", error) &&
         LoadDiffInputs(input_paths, efb.interpreter(), &inputs, &runs, error) &&
         OpenFloatReference(onnx_path, &ref, error) &&
         CompareLayers(FloatReference(ref, inputs), efb, inputs, runs, jump_db, out, error);
}

std::string LayerDiffJson(const LayerDiff& d) {
  return "{\"runs\": " + std::to_string(d.runs) +
         ", \"unmatched\": " + std::to_string(d.unmatched) +
         ", \"first_jump\": " + std::to_string(d.first_jump) +
         ", \"layers\": " + LayersJson(d.layers) + "}";
}

}  // namespace edgefold::tools
