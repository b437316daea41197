// The scalar training table: the reference kernels (Cortex-M, non-NEON ARM, test oracle).
#include "kernels/train_kernel_table.h"
#include "kernels/train_reference.h"

namespace edgefold::kernels::train_scalar {

const TrainKernelTable kTable = {"scalar",
                                 Isa::kScalar,
                                 &ref::BatchnormTrainForward,
                                 &ref::BatchnormBackward,
                                 &ref::GemmAtB,
                                 &ref::GemmABt,
                                 &ref::Col2im,
                                 &ref::Conv2dDepthwiseBackward,
                                 &ref::Pool2dBackward,
                                 &ref::SoftmaxCrossEntropy,
                                 &ref::SgdMomentum,
                                 &ref::ChannelMoments,
                                 &ref::BatchnormStatistics,
                                 &ref::BatchnormNormalize};

}  // namespace edgefold::kernels::train_scalar
