#include "kernels/conv/im2col_rows.h"
#include "kernels/reference.h"

namespace edgefold::kernels::ref {

// Zero outside the image. Every ISA table shares this code (kernels/conv/im2col_rows.h).
void Im2col(const Conv2dShape& s, const float* x_group, float* col) {
  Im2colRows<float>(s, x_group, 0.0f, col);
}

}  // namespace edgefold::kernels::ref
