# AArch64 Linux (NEON): Debian's g++-aarch64-linux-gnu; tests run under qemu-aarch64.
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=targets/aarch64-linux-gnu.cmake \
#         -DEDGEFOLD_BUILD_COMPILER=OFF && cmake --build build-aarch64 -j2 && ctest --test-dir build-aarch64
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(EDGEFOLD_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH ${EDGEFOLD_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # host flatc
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# binfmt_misc is not registered on CI machines: ctest calls the emulator explicitly.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;${EDGEFOLD_SYSROOT})
