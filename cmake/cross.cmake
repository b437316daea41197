# Helpers for cross builds. Bare-metal toolchain files (targets/arm-none-eabi-*.cmake) set
# EDGEFOLD_MCU and EDGEFOLD_MCU_DIR (targets/cortex-m).
#
# Firmware embeds models that host tools produce (`edgefold compile`, `edgefold export-c`,
# the tiny-model generator of tests/mcu). A native build provides them; a bare-metal build
# is pointed at that build's bin/ with -DEDGEFOLD_HOST_BIN_DIR=/path/to/build/bin.
include_guard(GLOBAL)
set(EDGEFOLD_HOST_BIN_DIR "" CACHE PATH "bin/ of a native edgefold build (host tools for MCU builds)")

# The path (generator expression in native builds) of host tool `tool`.
function(edgefold_host_tool out tool)
  if(EDGEFOLD_MCU)
    if(NOT EDGEFOLD_HOST_BIN_DIR OR NOT EXISTS ${EDGEFOLD_HOST_BIN_DIR}/${tool})
      message(FATAL_ERROR "MCU build needs host tool '${tool}': build it natively and pass "
                          "-DEDGEFOLD_HOST_BIN_DIR=<native build>/bin (see targets/README.md)")
    endif()
    set(${out} ${EDGEFOLD_HOST_BIN_DIR}/${tool} PARENT_SCOPE)
  else()
    set(${out} $<TARGET_FILE:${tool}> PARENT_SCOPE)
  endif()
endfunction()

# `edgefold export-c EFB -o HEADER --name NAME` as a build step.
function(edgefold_export_c efb header name)
  edgefold_host_tool(cli edgefold)
  add_custom_command(OUTPUT ${header}
    COMMAND ${cli} export-c ${efb} -o ${header} --name ${name}
    DEPENDS ${efb} ${cli} $<$<NOT:$<BOOL:${EDGEFOLD_MCU}>>:edgefold>
    COMMENT "edgefold export-c ${name}")
endfunction()

# Makes `target` a bare-metal program: reset code + vector table, C++ ABI hooks, a link map
# (for the size report). No-op on hosted targets.
function(edgefold_mcu_executable target)
  if(EDGEFOLD_MCU)
    # The top level turns on PIC for every target; static firmware needs none (a GOT costs
    # flash and cycles). mps2.ld still copies a .got with .data if one appears.
    foreach(t ${target} edgefold_runtime edgefold_kernels edgefold_train_kernels edgefold_training)
      if(TARGET ${t})
        set_property(TARGET ${t} PROPERTY POSITION_INDEPENDENT_CODE OFF)
      endif()
    endforeach()
    target_sources(${target} PRIVATE ${EDGEFOLD_MCU_DIR}/startup.c ${EDGEFOLD_MCU_DIR}/cxx_support.c)
    foreach(src ${EDGEFOLD_MCU_EXTRA_SOURCES})   # a board's own pieces (toolchain file)
      target_sources(${target} PRIVATE ${EDGEFOLD_MCU_DIR}/${src})
    endforeach()
    target_link_options(${target} PRIVATE -Wl,-Map=$<TARGET_FILE:${target}>.map)
  endif()
endfunction()

# Links only the ops `target` registers on its own OpResolver: redirects the runtime's
# fallback "every op" resolver to an empty one (targets/cortex-m/no_default_resolver.cc).
function(edgefold_mcu_trim_ops target)
  if(EDGEFOLD_MCU)
    target_sources(${target} PRIVATE ${EDGEFOLD_MCU_DIR}/no_default_resolver.cc)
    target_link_options(${target} PRIVATE -Wl,--wrap=_ZN8edgefold8internal17DefaultOpResolverEv)
  endif()
endfunction()
