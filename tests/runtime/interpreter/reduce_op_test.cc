// The Reduce op: keepdims and dropped dims give the same values on every ISA, Prepare refuses an
// output that is not the input with the reduced dims 1 or gone, naming the op.
#include <gtest/gtest.h>

#include "testing/efb_builder.h"
#include "testing/run_model.h"

namespace edgefold::testing {
namespace {

// x [2, 3, 4] reduced over dims [1, 3) (sum) into y of `y_shape`.
std::vector<uint8_t> Build(const std::vector<int32_t>& y_shape, int32_t axis = 1,
                           int32_t count = 2) {
  EfbBuilder e;
  const int x = e.AddInput("x", {2, 3, 4});
  const int y = e.AddTensor("y", y_shape);
  fb::ReduceOptionsT o;
  o.kind = fb::ReduceKind::Sum;
  o.axis = axis;
  o.count = count;
  fb::OpOptionsUnion u;
  u.Set(std::move(o));
  e.AddOp(fb::OpType::Reduce, "sum", {x}, {y}, std::move(u));
  e.AddOutput(y);
  return e.Finish();
}

TEST(ReduceOp, KeepdimsOrNotSameSums) {
  const std::vector<float> x = RandomVector(24, 4, -1, 1);
  for (const std::vector<int32_t>& shape :
       {std::vector<int32_t>{2, 1, 1}, std::vector<int32_t>{2}}) {
    for (Isa isa : AvailableIsas()) {
      const RunResult r = RunModel(Build(shape), {x}, isa);
      ASSERT_EQ(r.status, Status::kOk) << r.log;
      ASSERT_EQ(r.outputs.at(0).size(), 2u);
      for (size_t n = 0; n < 2; ++n) {
        double want = 0;
        for (size_t i = 0; i < 12; ++i) want += x[n * 12 + i];
        EXPECT_NEAR(r.outputs[0][n], want, 1e-5);
      }
    }
  }
}

TEST(ReduceOp, RefusesAWrongOutputNamingTheOp) {
  for (const std::vector<int32_t>& shape :
       {std::vector<int32_t>{2, 3, 1}, std::vector<int32_t>{2, 1}}) {
    const RunResult r = RunModel(Build(shape), {RandomVector(24, 4, -1, 1)});
    EXPECT_EQ(r.status, Status::kShapeMismatch) << r.log;
    EXPECT_NE(r.log.find("Reduce 'sum'"), std::string::npos) << r.log;
  }
  const RunResult r =
      RunModel(Build({2, 3, 4}, 2, 2), {RandomVector(24, 4, -1, 1)});  // dims [2, 4) of rank 3
  EXPECT_EQ(r.status, Status::kInvalidModel) << r.log;
  EXPECT_NE(r.log.find("exceed rank"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace edgefold::testing
