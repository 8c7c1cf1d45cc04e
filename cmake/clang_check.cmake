# tools/clang_check.sh as the ctest test clang_check: every translation unit of this
# build compiled again by clang++ -fsyntax-only with the build's flags, so that what
# clang 14 refuses (tools/fuzz.sh and tools/sanitize_sweep.sh build with it) fails the
# suite the day it is written. Registered when clang++ is installed (`tools/setup.sh
# --clang`, which tools/test.sh runs).
if(NOT MGEDUMP_BUILD_TESTS)
  return()
endif()

# A NOTFOUND result is searched again at the next configure, so installing clang later is enough.
find_program(MGEDUMP_CLANGXX clang++)
if(NOT MGEDUMP_CLANGXX)
  message(STATUS "clang_check: not registered (no clang++; bash tools/setup.sh --clang installs it)")
  return()
endif()

add_test(NAME clang_check COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/clang_check.sh ${CMAKE_BINARY_DIR})
set_tests_properties(clang_check PROPERTIES ENVIRONMENT "CLANG=${MGEDUMP_CLANGXX}" TIMEOUT 1800 LABELS clang
                     # It runs a compiler on every core: alone, so that no timed test shares them.
                     RUN_SERIAL TRUE)
