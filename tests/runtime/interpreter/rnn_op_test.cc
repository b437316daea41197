// The Rnn op (bidirectional LSTM with all three outputs) on every ISA: the final states are the
// sequence's last step of each direction and every table agrees with the scalar one; Prepare's
// refusals name the op, as do Expand's.
#include <gtest/gtest.h>

#include <cmath>

#include "testing/efb_builder.h"
#include "testing/run_model.h"

namespace edgefold::testing {
namespace {

// X [3, 1, 2], hidden 2, both directions: W [2, 2, 8], R [2, 2, 8], B [2, 2, 8].
struct Lstm {
  int scratch_bytes = (3 * 8 + 2) * 4;  // projection [S·B·4H] + c [B·H]
  std::vector<int32_t> w_shape = {2, 2, 8};
  std::vector<int32_t> yh_shape = {2, 1, 2};
  bool output_cell = true;
};

std::vector<uint8_t> Build(const Lstm& c) {
  EfbBuilder e;
  const int x = e.AddInput("x", {3, 1, 2});
  size_t w_elems = 1;
  for (int32_t d : c.w_shape) w_elems *= size_t(d);
  const int w = e.AddConstant("w", c.w_shape, RandomVector(w_elems, 1, -1, 1));
  const int r = e.AddConstant("r", {2, 2, 8}, RandomVector(32, 2, -1, 1));
  const int b = e.AddConstant("b", {2, 2, 8}, RandomVector(32, 3, -1, 1));
  const int yh = e.AddTensor("y_h", c.yh_shape);
  const int y = e.AddTensor("y", {3, 2, 1, 2});
  const int yc = e.AddTensor("y_c", {2, 1, 2});
  fb::RnnOptionsT o;
  o.cell = fb::RnnCell::Lstm;
  o.direction = fb::RnnDirection::Bidirectional;
  o.hidden_size = 2;
  o.output_sequence = true;
  o.output_cell = c.output_cell;
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  e.AddOp(fb::OpType::Rnn, "lstm", {x, w, r, b}, {yh, y, yc}, std::move(u),
          uint64_t(c.scratch_bytes));
  e.AddOutput(yh);
  e.AddOutput(y);
  e.AddOutput(yc);
  return e.Finish();
}

TEST(RnnOp, FinalStatesAreTheLastStepsOnEveryIsa) {
  const std::vector<uint8_t> model = Build(Lstm());
  const std::vector<float> x = RandomVector(6, 4, -2, 2);
  const RunResult scalar = RunModel(model, {x}, Isa::kScalar);
  ASSERT_EQ(scalar.status, Status::kOk) << scalar.log;
  for (Isa isa : AvailableIsas()) {
    const RunResult r = RunModel(model, {x}, isa);
    ASSERT_EQ(r.status, Status::kOk) << IsaName(isa) << ": " << r.log;
    const std::vector<float>& yh = r.outputs.at(0);
    const std::vector<float>& y = r.outputs.at(1);  // [t][d][b][h]
    for (int u = 0; u < 2; ++u) {
      EXPECT_EQ(yh[u], y[(2 * 2 + 0) * 2 + u]) << IsaName(isa);      // forward: t = 2
      EXPECT_EQ(yh[2 + u], y[(0 * 2 + 1) * 2 + u]) << IsaName(isa);  // reverse: t = 0
    }
    for (size_t k = 0; k < 3; ++k)
      for (size_t i = 0; i < r.outputs[k].size(); ++i)
        ASSERT_NEAR(r.outputs[k][i], scalar.outputs[k][i], 1e-5) << IsaName(isa) << " output " << k;
  }
}

void ExpectRefused(const std::vector<uint8_t>& model, size_t inputs, const std::string& op,
                   Status status, const std::string& what) {
  const RunResult r = RunModel(model, {std::vector<float>(inputs, 0.5f)});
  EXPECT_EQ(r.status, status) << r.log;
  EXPECT_NE(r.log.find(op), std::string::npos) << r.log;
  EXPECT_NE(r.log.find(what), std::string::npos) << r.log;
}

TEST(RnnOp, RefusesBadModelsNamingTheOp) {
  Lstm small_scratch;
  small_scratch.scratch_bytes = 16;
  ExpectRefused(Build(small_scratch), 6, "Rnn 'lstm'", Status::kInvalidModel, "scratch bytes");
  Lstm wrong_w;
  wrong_w.w_shape = {2, 3, 8};  // input size 3 for X's 2
  ExpectRefused(Build(wrong_w), 6, "Rnn 'lstm'", Status::kShapeMismatch, "packed W");
  Lstm wrong_yh;
  wrong_yh.yh_shape = {1, 1, 2};  // one direction's state for a bidirectional op
  ExpectRefused(Build(wrong_yh), 6, "Rnn 'lstm'", Status::kShapeMismatch, "Y_h must be");
  Lstm no_cell;
  no_cell.output_cell = false;  // three outputs, options name two
  ExpectRefused(Build(no_cell), 6, "Rnn 'lstm'", Status::kInvalidModel, "outputs");
}

TEST(ExpandOp, RefusesShapesThatDoNotBroadcast) {
  EfbBuilder e;
  const int x = e.AddInput("x", {3, 2});
  const int y = e.AddTensor("y", {3, 4});
  fb::OpOptionsUnion u;
  u.Set(fb::ExpandOptionsT());
  e.AddOp(fb::OpType::Expand, "grow", {x}, {y}, std::move(u));
  e.AddOutput(y);
  ExpectRefused(e.Finish(), 6, "Expand 'grow'", Status::kShapeMismatch, "does not broadcast");
}

}  // namespace
}  // namespace edgefold::testing
