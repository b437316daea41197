// What training updates, decided by the compiler from the graph alone (train/trainable_set.h):
// the presets, the head, sparse updates, and the refusals that name the option.
#include <gtest/gtest.h>

#include "train/trainable_set.h"

namespace edgefold::compiler {
namespace {

using Role = GraphOutline::OpRole;

// x → conv0(w0, b0) → bn1(γ, β, μ, σ²) → conv2(w2 computed, not constant) → bn3(γ, β, μ, σ²)
//   → gemm4(w4, b4) → z. Tensors are numbered as listed.
GraphOutline Outline() {
  GraphOutline g;
  const char* names[] = {"x", "w0", "b0",  "a",  "g1", "be1", "m1", "v1", "c", "w2",
                         "d", "g3", "be3", "m3", "v3", "e",   "w4", "b4", "z"};
  const bool constant[] = {false, true, true, false, true, true,  true, true, false, false,
                           false, true, true, true,  true, false, true, true, false};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
    g.tensors.push_back({names[i], {1}, constant[i]});
  g.ops = {{"conv0", Role::kConv, {0, 1, 2}, {3}},
           {"bn1", Role::kBatchNorm, {3, 4, 5, 6, 7}, {8}},
           {"conv2", Role::kConv, {8, 9}, {10}},
           {"bn3", Role::kBatchNorm, {10, 11, 12, 13, 14}, {15}},
           {"gemm4", Role::kGemm, {15, 16, 17}, {18}}};
  g.inputs = {0};
  g.outputs = {18};
  return g;
}

TEST(TrainableSet, PresetsTakeGammaBetaTheHeadOrEveryWeightButNeverStatistics) {
  const GraphOutline g = Outline();
  EXPECT_EQ(TrainableTensors(g, TrainableSet::kBatchNorm), (std::vector<int32_t>{4, 5, 11, 12}));
  EXPECT_EQ(TrainableTensors(g, TrainableSet::kBatchNormAndHead),
            (std::vector<int32_t>{4, 5, 11, 12, 16, 17}));
  // conv2's weights are computed (not a constant): not a parameter.
  EXPECT_EQ(TrainableTensors(g, TrainableSet::kAll),
            (std::vector<int32_t>{1, 2, 4, 5, 11, 12, 16, 17}));
}

TEST(TrainableSet, ASparseUpdateStartsAtTheNamedNodeOrTheKthBatchNormFromTheEnd) {
  const GraphOutline g = Outline();
  std::string error;
  TrainingOptions t;
  EXPECT_EQ(FirstTrainedOp(g, t, &error), 0);
  t.train_from = "bn3";
  EXPECT_EQ(FirstTrainedOp(g, t, &error), 3);
  t.train_from = "d";  // conv2's output names conv2
  EXPECT_EQ(FirstTrainedOp(g, t, &error), 2);
  t.train_from.clear();
  t.trainable_last = 1;
  const int first = FirstTrainedOp(g, t, &error);
  EXPECT_EQ(first, 3);
  EXPECT_EQ(TrainedFrom(g, TrainableTensors(g, TrainableSet::kAll), first),
            (std::vector<int32_t>{11, 12, 16, 17}));
}

TEST(TrainableSet, BadRequestsNameTheOption) {
  const GraphOutline g = Outline();
  std::string error;
  TrainingOptions t;
  t.train_from = "nowhere";
  EXPECT_EQ(FirstTrainedOp(g, t, &error), -1);
  EXPECT_NE(error.find("--train-from 'nowhere'"), std::string::npos) << error;
  t.trainable_last = 1;
  EXPECT_EQ(FirstTrainedOp(g, t, &error), -1);
  EXPECT_NE(error.find("give one"), std::string::npos) << error;
  t.train_from.clear();
  t.trainable_last = 3;
  EXPECT_EQ(FirstTrainedOp(g, t, &error), -1);
  EXPECT_NE(error.find("the model has 2 BatchNorm layers"), std::string::npos) << error;
}

}  // namespace
}  // namespace edgefold::compiler
