// What the compiler's training code asks of the model writer, without the schema: the graph's
// outline and the model written with a training section (format version 3) in one pass.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "write/training_section_data.h"

namespace edgefold::compiler {

struct LoweredModel;

// A model compiled once and kept lowered, written again with each section asked for.
class LoweredModelWriter {
 public:
  LoweredModelWriter();
  ~LoweredModelWriter();
  LoweredModelWriter(const LoweredModelWriter&) = delete;
  LoweredModelWriter& operator=(const LoweredModelWriter&) = delete;

  LoweredModel* lowered() { return model_.get(); }  // filled by CompileModelLowered
  GraphOutline Outline() const;
  std::vector<uint8_t> Write(const TrainingSectionData& section);

 private:
  std::unique_ptr<LoweredModel> model_;
};

// The outline of written, verified .efb bytes.
GraphOutline OutlineOfEfb(const std::vector<uint8_t>& efb);

// `efb` with its training section set to `section` (format version 3), verified. Throws
// CompileError if the result fails verification.
std::vector<uint8_t> WithTrainingSection(const std::vector<uint8_t>& efb,
                                         const TrainingSectionData& section);

}  // namespace edgefold::compiler
