// The training-table selector: every level resolves to a table of that level (or scalar),
// kAuto follows DetectBestIsa, and under QEMU (EDGEFOLD_EXPECT_ISA) the emulated CPU gets
// exactly the level it supports.
#include <cstdlib>
#include <cstring>

#include "testing/train_kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {

TEST(TrainSelectTest, ScalarTableIsComplete) {
  const TrainKernelTable& t = ScalarTable<TrainKernelTable>();
  EXPECT_STREQ(t.name, "scalar");
  EXPECT_EQ(t.isa, Isa::kScalar);
  EXPECT_EQ(t.batchnorm_train_forward, &ref::BatchnormTrainForward);
}

TEST(TrainSelectTest, EveryEntryIsFilled) {
  for (Isa isa : AllTrainIsas()) {
    const TrainKernelTable* t = TableFor<TrainKernelTable>(isa);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->isa, isa);
    EXPECT_STREQ(t->name, IsaName(isa));
    const void* entries[] = {reinterpret_cast<const void*>(t->batchnorm_train_forward),
                             reinterpret_cast<const void*>(t->batchnorm_backward),
                             reinterpret_cast<const void*>(t->gemm_at_b),
                             reinterpret_cast<const void*>(t->gemm_a_bt),
                             reinterpret_cast<const void*>(t->col2im),
                             reinterpret_cast<const void*>(t->conv2d_depthwise_backward),
                             reinterpret_cast<const void*>(t->pool2d_backward),
                             reinterpret_cast<const void*>(t->softmax_cross_entropy),
                             reinterpret_cast<const void*>(t->sgd_momentum),
                             reinterpret_cast<const void*>(t->channel_moments)};
    for (const void* e : entries) EXPECT_NE(e, nullptr) << IsaName(isa);
  }
}

TEST(TrainSelectTest, AutoPicksTheDetectedLevel) {
  const TrainKernelTable& t = SelectTable<TrainKernelTable>(Isa::kAuto);
  EXPECT_EQ(t.isa, DetectBestIsa());
  const char* expect = std::getenv("EDGEFOLD_EXPECT_ISA");
  if (expect != nullptr && *expect != '\0') {
    EXPECT_STREQ(t.name, expect);
  }
}

TEST(TrainSelectTest, UnavailableLevelFallsBackToScalar) {
  for (Isa isa : {Isa::kSse42, Isa::kAvx2Fma, Isa::kAvx512, Isa::kNeon}) {
    const TrainKernelTable& t = SelectTable<TrainKernelTable>(isa);
    EXPECT_EQ(t.isa, IsaAvailable(isa) ? isa : Isa::kScalar) << IsaName(isa);
  }
}

}  // namespace
}  // namespace edgefold::kernels::testing
