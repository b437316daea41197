#include "model_tools.h"

#include <algorithm>

#include "edgefold/model_generated.h"
#include "edgefold/trainer.h"
#include "export_c.h"
#include "memory_plot.h"
#include "py_errors.h"

namespace edgefold::python {

std::string MemoryPlotSvg(const PyModel& model, int width, int height) {
  if (width < 200 || height < 150)
    throw py::value_error("memory_plot: width and height must be at least 200x150");
  tools::MemoryPlot plot;
  std::string error;
  if (!tools::BuildMemoryPlot(*fb::GetModel(model.bytes()->data.get()),
                              model.name() + " arena plan", &plot, &error))
    throw EdgefoldError(model.name() + ": " + error);
  return tools::RenderSvg(plot, width, height);
}

std::string ExportCText(const PyModel& model, const std::string& name) {
  if (!tools::IsCIdentifier(name))
    throw py::value_error("export_c: name '" + name + "' is not a C identifier");
  const uint8_t* bytes = model.bytes()->data.get();
  const size_t size = model.bytes()->bytes;
  tools::ExportCInfo info;
  info.name = name;
  if (RequiredArenaBytes(bytes, size, &info.host_arena_bytes) != Status::kOk)
    throw EdgefoldError(model.name() + ": not a valid model");
  const fb::Model* m = fb::GetModel(bytes);
  info.planned_arena_bytes = m->arena_bytes();
  for (flatbuffers::uoffset_t i = 0; m->operators() && i < m->operators()->size(); ++i) {
    const std::string kind = fb::EnumNameOpType(m->operators()->Get(i)->type());
    if (std::find(info.op_kinds.begin(), info.op_kinds.end(), kind) == info.op_kinds.end())
      info.op_kinds.push_back(kind);
  }
  // A trainable model also gets its training arena (as export-c writes it).
  if (!model.trainable() || RequiredTrainingArenaBytes(bytes, size, TrainOptions(),
                                                       &info.host_train_arena_bytes) != Status::kOk)
    info.host_train_arena_bytes = 0;
  return tools::ExportC(bytes, size, info);
}

}  // namespace edgefold::python
