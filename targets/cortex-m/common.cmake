# Shared by the arm-none-eabi Cortex-M toolchain files; they set EDGEFOLD_MCU_CPU_FLAGS and
# EDGEFOLD_MCU_MACHINE (a QEMU mps2/mps3 board) first, and EDGEFOLD_MCU_LINKER_SCRIPT where the
# board's memory map is not mps2.ld's.
#
# Libraries: newlib-nano + rdimon (semihosting: printf to the host, exit codes) and only
# libstdc++'s *headers* (Debian's libstdc++-arm-none-eabi-dev, 1 MB, instead of the 1.5 GB
# libstdc++-arm-none-eabi-newlib): the runtime uses no library C++ code, so C++ programs are
# linked by the C driver (GCC 12 has no -nostdlib++) and cortex-m/cxx_support.c supplies the
# three ABI hooks g++ may emit.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)   # no startup code during compiler checks
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(EDGEFOLD_MCU ON CACHE BOOL "bare-metal Cortex-M build (tests/mcu, examples/mcu)")
set(EDGEFOLD_MCU_DIR ${CMAKE_CURRENT_LIST_DIR})
if(NOT EDGEFOLD_MCU_LINKER_SCRIPT)
  set(EDGEFOLD_MCU_LINKER_SCRIPT mps2.ld)
endif()
set(_mcu_common "${EDGEFOLD_MCU_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_mcu_common}")
# gnu++17: newlib hides posix_memalign (used by xsimd's headers) from strict C++17.
# No thread-safe statics: single core, and it avoids needing __cxa_guard_* from libsupc++.
set(CMAKE_CXX_FLAGS_INIT "${_mcu_common} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${EDGEFOLD_MCU_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--specs=nano.specs --specs=rdimon.specs -T${CMAKE_CURRENT_LIST_DIR}/${EDGEFOLD_MCU_LINKER_SCRIPT} -Wl,--gc-sections")
set(CMAKE_CXX_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES> -lm")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_CXX_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_EXECUTABLE_SUFFIX_C .elf)
set(CMAKE_EXECUTABLE_SUFFIX_CXX .elf)

# Semihosting: stdout goes to the host's stdout, main's return value becomes QEMU's exit code.
# ctest appends the .elf after -kernel.
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-system-arm;-M;${EDGEFOLD_MCU_MACHINE};-nographic;-monitor;none;-serial;none;
    -semihosting-config;enable=on,target=native;-kernel)
