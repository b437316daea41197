#include "layer_diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "edgefold_compiler/compiler.h"
#include "layer_taps.h"
#include "npy.h"

namespace edgefold::tools {
namespace {

constexpr double kSqnrCapDb = 100.0;
constexpr double kFirstLayerFloorDb = 20.0;

bool CompileReference(const std::string& onnx_path, std::vector<uint8_t>* bytes,
                      std::string* error) {
  compiler::CompileOptions o;
  o.fold_batchnorm = false;
  o.fuse_activations = false;
  o.winograd = false;
  o.verify = false;
  o.expansion_band_kb = 0;
  o.qdq_as_float = true;
  compiler::CompileResult r = compiler::CompileFile(onnx_path, o);
  if (!r.ok) return *error = r.error, false;
  *bytes = std::move(r.model);
  return true;
}

bool LoadInputs(const std::vector<std::string>& paths, Interpreter& interp,
                std::vector<NpyArray>* out, size_t* runs, std::string* error) {
  if (paths.size() != interp.num_inputs())
    return *error = "the model has " + std::to_string(interp.num_inputs()) + " input(s), got " +
                    std::to_string(paths.size()),
           false;
  out->resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!ReadNpy(paths[i], &(*out)[i], error)) return false;
    const size_t elems = interp.input(i).elems, have = (*out)[i].f32.size();
    if ((*out)[i].dtype != NpyDType::kFloat32 || elems == 0 || have == 0 || have % elems != 0)
      return *error = "input " + std::to_string(i) + " '" + interp.input(i).name +
                      "': want float32 data, a multiple of " + std::to_string(elems) + " values",
             false;
    if (i > 0 && have / elems != *runs)
      return *error = "input " + std::to_string(i) + " '" + interp.input(i).name +
                      "': another number of runs than input 0",
             false;
    *runs = have / elems;
  }
  return true;
}

bool SetInputs(Interpreter& interp, const std::vector<NpyArray>& inputs, size_t run,
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

bool DiffLayers(const std::string& onnx_path, const std::vector<uint8_t>& efb_bytes,
                const std::vector<std::string>& input_paths, double jump_db, LayerDiff* out,
                std::string* error) {
  std::vector<uint8_t> ref_bytes;
  LayerTaps ref, efb;
  std::vector<NpyArray> inputs;
  if (!CompileReference(onnx_path, &ref_bytes, error) ||
      !ref.Open(ref_bytes, onnx_path + " (reference)", error) ||
      !efb.Open(efb_bytes, "the .efb", error) ||
      !LoadInputs(input_paths, efb.interpreter(), &inputs, &out->runs, error))
    return false;
  std::vector<size_t> ref_index;  // per layer, its tensor's index in the reference's taps
  std::vector<size_t> efb_index;
  for (size_t run = 0; run < out->runs; ++run) {
    std::vector<LayerValue> want, got;
    if (!SetInputs(ref.interpreter(), inputs, run, error) || !ref.Run(&want, error) ||
        !SetInputs(efb.interpreter(), inputs, run, error) || !efb.Run(&got, error))
      return false;
    if (run == 0) {
      std::map<std::string, size_t> by_name;
      for (size_t i = 0; i < want.size(); ++i) by_name[want[i].tensor] = i;
      for (size_t g = 0; g < got.size(); ++g) {
        auto it = by_name.find(got[g].tensor);
        if (it == by_name.end() || want[it->second].values.size() != got[g].values.size()) {
          ++out->unmatched;
          continue;
        }
        LayerReport l;
        l.op_name = got[g].op_name;
        l.op_type = got[g].op_type;
        l.tensor = got[g].tensor;
        l.int8 = got[g].int8;
        out->layers.push_back(l);
        ref_index.push_back(it->second);
        efb_index.push_back(g);
      }
    }
    for (size_t k = 0; k < out->layers.size(); ++k) {
      LayerReport& l = out->layers[k];
      const std::vector<float>&r = want[ref_index[k]].values, &e = got[efb_index[k]].values;
      for (size_t i = 0; i < r.size(); ++i) {
        const double d = static_cast<double>(e[i]) - r[i];
        l.max_abs = std::max(l.max_abs, std::fabs(d));
        l.max_ref = std::max(l.max_ref, std::fabs(static_cast<double>(r[i])));
        l.signal += static_cast<double>(r[i]) * r[i];
        l.noise += d * d;
      }
    }
  }
  out->first_jump = FirstJump(out->layers, jump_db);
  return true;
}

std::string LayerDiffJson(const LayerDiff& d) {
  return "{\"runs\": " + std::to_string(d.runs) +
         ", \"unmatched\": " + std::to_string(d.unmatched) +
         ", \"first_jump\": " + std::to_string(d.first_jump) +
         ", \"layers\": " + LayersJson(d.layers) + "}";
}

}  // namespace edgefold::tools
