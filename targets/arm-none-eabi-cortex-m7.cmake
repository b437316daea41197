# Cortex-M7 (FPv5 double-precision FPU), bare metal; tests run on QEMU's mps2-an500 board.
#   cmake -S . -B build-m7 -G Ninja -DCMAKE_TOOLCHAIN_FILE=targets/arm-none-eabi-cortex-m7.cmake \
#         -DCMAKE_BUILD_TYPE=MinSizeRel -DEDGEFOLD_BUILD_COMPILER=OFF
set(EDGEFOLD_MCU_CPU_FLAGS "-mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard")
set(EDGEFOLD_MCU_MACHINE mps2-an500)
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m/common.cmake)
