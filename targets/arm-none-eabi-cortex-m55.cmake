# Cortex-M55 with Helium (MVE integer + MVE-F) and FPv5, bare metal; tests run on QEMU's
# mps3-an547 board (cortex-m/mps3-an547.ld).
#   cmake -S . -B build-m55 -G Ninja -DCMAKE_TOOLCHAIN_FILE=targets/arm-none-eabi-cortex-m55.cmake \
#         -DCMAKE_BUILD_TYPE=MinSizeRel -DEDGEFOLD_BUILD_COMPILER=OFF
# -mcpu=cortex-m55 implies +mve.fp+fp.dp; newlib comes from the thumb/v8-m.main+dp/hard multilib.
set(EDGEFOLD_MCU_CPU_FLAGS "-mcpu=cortex-m55 -mthumb -mfpu=auto -mfloat-abi=hard")
set(EDGEFOLD_MCU_MACHINE mps3-an547)
set(EDGEFOLD_MCU_LINKER_SCRIPT mps3-an547.ld)
set(EDGEFOLD_MCU_EXTRA_SOURCES mps3_sbrk.c)   # the heap in DDR (mps3_sbrk.c)
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m/common.cmake)
