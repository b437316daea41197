# Finds what the Python package needs (Python 3 headers, pybind11 from Debian's pybind11-dev)
# and sets EDGEFOLD_PYTHON_DEPS_FOUND. Host builds of edgefold as the top-level project only: a
# parent that vendors it with add_subdirectory gets no Python search (-DEDGEFOLD_BUILD_PYTHON=ON
# asks for it).
#
# The interpreter: Debian's /usr/bin/python3 when present, because python3-numpy, -pytest and
# -torch are installed for it; a pyenv or conda python3 earlier on PATH has none of them.
# -DPython3_EXECUTABLE=... picks another (pip install . passes the venv's).
set(EDGEFOLD_PYTHON_DEPS_FOUND OFF)
if(NOT CMAKE_CROSSCOMPILING AND (CMAKE_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR OR EDGEFOLD_BUILD_PYTHON))
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python 3 the edgefold package is built for")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(EDGEFOLD_PYTHON_DEPS_FOUND ON)
  else()
    message(STATUS "edgefold Python package: not built (needs python3-dev and pybind11-dev)")
  endif()
endif()
