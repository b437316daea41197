// Checks the op tests share on a hand-built model (efb_builder): its first output on every ISA
// level of this machine against a reference, or its refusal naming the op.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "testing/run_model.h"

namespace edgefold::testing {

// Output 0 within rel_tol·(1 + |want|) of `want` on every ISA; `context` names the case.
inline void ExpectOutputOnEveryIsa(const std::vector<uint8_t>& model,
                                   const std::vector<std::vector<float>>& inputs,
                                   const std::vector<float>& want, double rel_tol,
                                   const std::string& context = "") {
  for (Isa isa : AvailableIsas()) {
    const RunResult r = RunModel(model, inputs, isa);
    ASSERT_EQ(r.status, Status::kOk) << IsaName(isa) << " " << context << ": " << r.log;
    ASSERT_EQ(r.outputs.at(0).size(), want.size()) << context;
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(r.outputs[0][i], want[i], rel_tol * (1 + std::fabs(want[i])))
          << IsaName(isa) << " " << context << " at " << i;
  }
}

// The model does not run: `status` (any failure when kOk), with a log naming `op` (as the
// runtime quotes it, e.g. "ConvTranspose 'up'") and containing `what`.
inline void ExpectRefusedNaming(const std::vector<uint8_t>& model,
                                const std::vector<std::vector<float>>& inputs,
                                const std::string& op, const std::string& what,
                                Status status = Status::kOk) {
  const RunResult r = RunModel(model, inputs);
  if (status == Status::kOk) {
    EXPECT_NE(r.status, Status::kOk) << r.log;
  } else {
    EXPECT_EQ(r.status, status) << r.log;
  }
  EXPECT_NE(r.log.find(op), std::string::npos) << r.log;
  EXPECT_NE(r.log.find(what), std::string::npos) << r.log;
}

}  // namespace edgefold::testing
