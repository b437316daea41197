# Packaging: `cmake --install` → find_package(edgefold) with edgefold::runtime and
# edgefold::compiler, a version file and edgefold.pc; and the same target names as ALIASes
# for parents that use add_subdirectory(edgefold) or FetchContent.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(edgefold::runtime ALIAS edgefold_runtime)
set_target_properties(edgefold_runtime PROPERTIES EXPORT_NAME runtime)
if(TARGET edgefold_training)
  add_library(edgefold::training ALIAS edgefold_training)
  set_target_properties(edgefold_training PROPERTIES EXPORT_NAME training)
endif()
if(TARGET edgefold_thread_pool)
  add_library(edgefold::thread_pool ALIAS edgefold_thread_pool)
  set_target_properties(edgefold_thread_pool PROPERTIES EXPORT_NAME thread_pool)
endif()
if(TARGET edgefold_compiler)
  add_library(edgefold::compiler ALIAS edgefold_compiler)
  set_target_properties(edgefold_compiler PROPERTIES EXPORT_NAME compiler)
endif()

# Helper targets that the two libraries link (static libraries export even their private
# link dependencies). Their include directories point into the source and build trees, which
# only in-tree code needs: wrap every entry in $<BUILD_INTERFACE:> so the export carries none
# of them. Installed users get edgefold's public headers through edgefold::runtime.
set(EDGEFOLD_EXPORT_HELPERS edgefold_kernels edgefold_hostdeps edgefold_schema edgefold_warnings)
if(TARGET edgefold_train_kernels)
  list(APPEND EDGEFOLD_EXPORT_HELPERS edgefold_train_kernels)
endif()
if(TARGET edgefold_compiler)
  list(APPEND EDGEFOLD_EXPORT_HELPERS edgefold_runtime_internal)
endif()
foreach(t ${EDGEFOLD_EXPORT_HELPERS} edgefold_compiler)
  if(NOT TARGET ${t})
    continue()
  endif()
  get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT dirs)
    continue()
  endif()
  set(wrapped "")
  foreach(d ${dirs})
    if(d MATCHES "^\\$<")
      list(APPEND wrapped "${d}")
    else()
      list(APPEND wrapped "$<BUILD_INTERFACE:${d}>")
    endif()
  endforeach()
  set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
  if(t MATCHES "^edgefold_(kernels|train_kernels|compiler)$")
    set_property(TARGET ${t} APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
                 "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  endif()
endforeach()

set(EDGEFOLD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/edgefold)
set(EDGEFOLD_INSTALL_TARGETS edgefold_runtime ${EDGEFOLD_EXPORT_HELPERS})
set(EDGEFOLD_PACKAGE_HAS_TRAINING FALSE)
if(TARGET edgefold_training)
  list(APPEND EDGEFOLD_INSTALL_TARGETS edgefold_training)
  set(EDGEFOLD_PACKAGE_HAS_TRAINING TRUE)
endif()
set(EDGEFOLD_PACKAGE_HAS_THREAD_POOL FALSE)
if(TARGET edgefold_thread_pool)
  list(APPEND EDGEFOLD_INSTALL_TARGETS edgefold_thread_pool)
  set(EDGEFOLD_PACKAGE_HAS_THREAD_POOL TRUE)
endif()
if(TARGET edgefold_compiler)
  list(APPEND EDGEFOLD_INSTALL_TARGETS edgefold_compiler)
  set(EDGEFOLD_PACKAGE_HAS_COMPILER ON)
else()
  set(EDGEFOLD_PACKAGE_HAS_COMPILER OFF)
endif()
install(TARGETS ${EDGEFOLD_INSTALL_TARGETS} EXPORT edgefoldTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET edgefold)
  install(TARGETS edgefold RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# Headers: the public runtime API, the compiler API, and the flatc-generated reader of the
# .efb format (for host tools that want to read model files themselves).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/edgefold
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/generated/edgefold/model_generated.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgefold)
install(FILES ${PROJECT_SOURCE_DIR}/schemas/model.fbs
        DESTINATION ${CMAKE_INSTALL_DATADIR}/edgefold)
if(TARGET edgefold_compiler)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/compiler/include/edgefold_compiler
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
endif()

install(EXPORT edgefoldTargets NAMESPACE edgefold:: DESTINATION ${EDGEFOLD_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/edgefoldConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/edgefoldConfig.cmake INSTALL_DESTINATION ${EDGEFOLD_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/edgefoldConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/edgefoldConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/edgefoldConfigVersion.cmake
        DESTINATION ${EDGEFOLD_CMAKE_DIR})

# pkg-config for the runtime (Makefile/IDE users): the archives in link order; the training
# ones are only pulled in when ef_trainer_* calls are used.
# The prefix is found relative to the .pc file, so `cmake --install --prefix X` relocates it.
set(EDGEFOLD_PC_LIBS "-ledgefold_runtime -ledgefold_kernels")
if(TARGET edgefold_training)
  set(EDGEFOLD_PC_LIBS "-ledgefold_training -ledgefold_train_kernels ${EDGEFOLD_PC_LIBS}")
endif()
file(RELATIVE_PATH EDGEFOLD_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${CMAKE_CURRENT_LIST_DIR}/edgefold.pc.in ${CMAKE_CURRENT_BINARY_DIR}/edgefold.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/edgefold.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
