# Cortex-M4F (FPv4 single-precision FPU), bare metal; tests run on QEMU's mps2-an386 board.
#   cmake -S . -B build-m4 -G Ninja -DCMAKE_TOOLCHAIN_FILE=targets/arm-none-eabi-cortex-m4.cmake \
#         -DCMAKE_BUILD_TYPE=MinSizeRel -DEDGEFOLD_BUILD_COMPILER=OFF
set(EDGEFOLD_MCU_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
set(EDGEFOLD_MCU_MACHINE mps2-an386)
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m/common.cmake)
