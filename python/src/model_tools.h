// What the CLI's inspect and export-c make of a .efb, for edgefold.Model: the arena plot as
// SVG and the firmware header text (tools/memory_plot.h, tools/export_c.h: the same code).
#pragma once
#include <string>

#include "py_model.h"

namespace edgefold::python {

// SVG text of the arena plan over time; throws EdgefoldError if the plan does not make sense.
std::string MemoryPlotSvg(const PyModel& model, int width, int height);

// The C++ header `edgefold export-c --name NAME` writes; ValueError if `name` is not a C identifier.
std::string ExportCText(const PyModel& model, const std::string& name);

}  // namespace edgefold::python
