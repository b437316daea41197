// The int8 kernel an op calls. Hosted builds take the kernel table's (the level selected at
// Create). Bare-metal builds have one level, the scalar table, and there it holds no int8
// entries: each int8 op names its scalar kernels directly, so --gc-sections keeps only the
// kernels of the ops a firmware registers (a float-only firmware carries no int8 code: 4 KiB
// of the Cortex-M4 KWS firmware's flash).
#pragma once
#include "kernels/reference.h"

#if defined(EDGEFOLD_INT8_KERNELS_BY_OP)
#define EDGEFOLD_S8_KERNEL(table, entry, kernel) (&::edgefold::kernels::ref::kernel)
#else
#define EDGEFOLD_S8_KERNEL(table, entry, kernel) ((table).entry)
#endif
