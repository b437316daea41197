# Header-only dependencies of the runtime, found the same way for native and cross builds.
#
# Debian's xsimd CMake package links a non-existent `xtl` (`ld: cannot find -lxtl`), and cross
# toolchains must not see /usr/include wholesale, so we stage just the two header trees in the
# build dir (symlinks) and expose that directory.
find_program(EDGEFOLD_FLATC flatc REQUIRED)
find_path(EDGEFOLD_XSIMD_DIR xsimd/xsimd.hpp PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
find_path(EDGEFOLD_FLATBUFFERS_DIR flatbuffers/flatbuffers.h PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)

set(EDGEFOLD_HOSTINC ${CMAKE_BINARY_DIR}/hostinc)
file(MAKE_DIRECTORY ${EDGEFOLD_HOSTINC})
foreach(pair "xsimd;${EDGEFOLD_XSIMD_DIR}" "flatbuffers;${EDGEFOLD_FLATBUFFERS_DIR}")
  list(GET pair 0 name)
  list(GET pair 1 dir)
  if(NOT EXISTS ${EDGEFOLD_HOSTINC}/${name})
    file(CREATE_LINK ${dir}/${name} ${EDGEFOLD_HOSTINC}/${name} SYMBOLIC)
  endif()
endforeach()
add_library(edgefold_hostdeps INTERFACE)
target_include_directories(edgefold_hostdeps SYSTEM INTERFACE ${EDGEFOLD_HOSTINC})

# Warnings for our own code.
add_library(edgefold_warnings INTERFACE)
target_compile_options(edgefold_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)
