# The Python package `mgedump` (python/mgedump, with its compiled core mgedump._core
# from tools/python), built for Debian's /usr/bin/python3 with Debian's pybind11
# into build/python/mgedump, and its pytest suite (tests/python) registered with
# ctest. setup.py (pip, python3 -m build) builds the same target with its own
# interpreter as MGEDUMP_PYTHON.
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
set(MGEDUMP_PYTHON /usr/bin/python3 CACHE FILEPATH "The Python interpreter the module is built for")
set(Python3_EXECUTABLE ${MGEDUMP_PYTHON})
set(PYTHON_EXECUTABLE ${MGEDUMP_PYTHON})
find_package(pybind11 CONFIG REQUIRED)

set(MGEDUMP_PYTHON_DIR ${CMAKE_BINARY_DIR}/python)
file(GLOB MGEDUMP_PYTHON_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tools/python/*.cpp)
# NO_EXTRAS: no LTO or stripping, so ccache and debug info work as for the other targets.
pybind11_add_module(mgedump_python NO_EXTRAS ${MGEDUMP_PYTHON_SRCS})
set_target_properties(mgedump_python PROPERTIES OUTPUT_NAME _core
                                                LIBRARY_OUTPUT_DIRECTORY ${MGEDUMP_PYTHON_DIR}/mgedump)
target_compile_options(mgedump_python PRIVATE ${MGEDUMP_WARNINGS})
target_compile_definitions(mgedump_python PRIVATE MGEDUMP_VERSION="${PROJECT_VERSION}")
# No mimalloc: inside Python the interpreter's allocator is the allocator.
target_link_libraries(mgedump_python PRIVATE mgedump_jobs)

# The package's Python files next to the module, so PYTHONPATH=build/python imports
# what pip would install.
file(GLOB MGEDUMP_PYTHON_PACKAGE_FILES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/python/mgedump/*)
set(MGEDUMP_PYTHON_PACKAGE_COPIES)
foreach(file IN LISTS MGEDUMP_PYTHON_PACKAGE_FILES)
  get_filename_component(name ${file} NAME)
  if(name STREQUAL "__pycache__")
    continue()
  endif()
  set(copy ${MGEDUMP_PYTHON_DIR}/mgedump/${name})
  add_custom_command(OUTPUT ${copy} COMMAND ${CMAKE_COMMAND} -E copy_if_different ${file} ${copy}
                     DEPENDS ${file} COMMENT "Copying python/mgedump/${name}" VERBATIM)
  list(APPEND MGEDUMP_PYTHON_PACKAGE_COPIES ${copy})
endforeach()
add_custom_target(mgedump_python_package ALL DEPENDS ${MGEDUMP_PYTHON_PACKAGE_COPIES})
add_dependencies(mgedump_python mgedump_python_package)
# The module of earlier builds, build/python/mgedump.<suffix>, would be a second `mgedump`.
file(GLOB MGEDUMP_PYTHON_OLD_MODULE ${MGEDUMP_PYTHON_DIR}/mgedump.*.so)
if(MGEDUMP_PYTHON_OLD_MODULE)
  file(REMOVE ${MGEDUMP_PYTHON_OLD_MODULE})
endif()

if(MGEDUMP_BUILD_TESTS)
  add_test(NAME python_tests
           COMMAND ${MGEDUMP_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/tests/python)
  set_tests_properties(python_tests PROPERTIES
    ENVIRONMENT "PYTHONPATH=${MGEDUMP_PYTHON_DIR};MGEDUMP_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR};PYTHONDONTWRITEBYTECODE=1")
endif()
