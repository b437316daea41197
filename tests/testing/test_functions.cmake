# CMake functions shared by the test folders.

# edgefold_add_isa_test(<target> <prefix> LIBS <libs...> SOURCES <sources...> [DEFINITIONS <defs...>])
# A GoogleTest binary comparing the kernel tables of every ISA level with the scalar reference.
# On x86 hosts with qemu-x86_64 the same binary also runs on emulated Haswell (AVX2+FMA, no
# AVX-512) and Nehalem (SSE4.2, no AVX) CPUs, as the tests <prefix>_qemu_<cpu>:
# EDGEFOLD_EXPECT_ISA tells the selector test which level the emulated CPU must get; a SIGILL
# from an AVX-512 (or AVX) instruction leaking into a lower table fails the whole run.
function(edgefold_add_isa_test target prefix)
  cmake_parse_arguments(arg "" "" "LIBS;SOURCES;DEFINITIONS" ${ARGN})
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE ${arg_LIBS} edgefold_kernel_test_support edgefold_warnings
                        GTest::gtest_main)
  if(arg_DEFINITIONS)
    target_compile_definitions(${target} PRIVATE ${arg_DEFINITIONS})
  endif()
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST PROPERTIES ENVIRONMENT "EDGEFOLD_ISA=")

  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" proc)
  find_program(EDGEFOLD_QEMU_X86_64 qemu-x86_64)
  if(EDGEFOLD_QEMU_X86_64 AND NOT CMAKE_CROSSCOMPILING AND proc MATCHES "^(x86_64|amd64)$")
    foreach(cpu_isa "Haswell;avx2+fma" "Nehalem;sse4.2")
      list(GET cpu_isa 0 cpu)
      list(GET cpu_isa 1 isa)
      add_test(NAME ${prefix}_qemu_${cpu} COMMAND ${EDGEFOLD_QEMU_X86_64} -cpu ${cpu} $<TARGET_FILE:${target}>)
      set_tests_properties(${prefix}_qemu_${cpu} PROPERTIES ENVIRONMENT "EDGEFOLD_EXPECT_ISA=${isa};EDGEFOLD_ISA="
                           TIMEOUT 600 LABELS qemu)
    endforeach()
  endif()
endfunction()

# edgefold_add_cli_test(<target> <sources...>)
# A GoogleTest binary that runs bin/edgefold (its path in EDGEFOLD_CLI) on ONNX models built in
# C++; the caller discovers its tests.
function(edgefold_add_cli_test target)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE edgefold_onnx_test_support edgefold_tools_base GTest::gtest_main)
  target_compile_definitions(${target} PRIVATE EDGEFOLD_CLI="$<TARGET_FILE:edgefold>")
  add_dependencies(${target} edgefold)
endfunction()
