# The Python module `mgedump` (tools/python), built for Debian's /usr/bin/python3
# with Debian's pybind11, and its pytest suite (tests/python) registered with ctest.
if(NOT MGEDUMP_BUILD_PYTHON)
  return()
endif()
# Sanitizer and fuzzing builds instrument the static libraries; a module made from
# them cannot be imported into an uninstrumented interpreter.
if(MGEDUMP_SANITIZE OR MGEDUMP_FUZZ)
  message(STATUS "mgedump Python module: not built with MGEDUMP_SANITIZE or MGEDUMP_FUZZ")
  return()
endif()

# The PATH python3 may be another interpreter (pyenv); the module must import in Debian's.
set(Python3_EXECUTABLE /usr/bin/python3)
set(PYTHON_EXECUTABLE /usr/bin/python3)
find_package(pybind11 CONFIG REQUIRED)

file(GLOB MGEDUMP_PYTHON_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tools/python/*.cpp)
# NO_EXTRAS: no LTO or stripping, so ccache and debug info work as for the other targets.
pybind11_add_module(mgedump_python NO_EXTRAS ${MGEDUMP_PYTHON_SRCS})
set_target_properties(mgedump_python PROPERTIES OUTPUT_NAME mgedump
                                                LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/python)
target_compile_options(mgedump_python PRIVATE ${MGEDUMP_WARNINGS})
# No mimalloc: inside Python the interpreter's allocator is the allocator.
target_link_libraries(mgedump_python PRIVATE mgedump_jobs)

if(MGEDUMP_BUILD_TESTS)
  add_test(NAME python_tests
           COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/tests/python)
  set_tests_properties(python_tests PROPERTIES
    ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;MGEDUMP_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR};PYTHONDONTWRITEBYTECODE=1")
endif()
