# tools/slurm_test.sh as the ctest test slurm_test: a one-node Slurm cluster on loopback that
# runs `mgedump batch` as job arrays of several shapes and checks their union against a single
# run. Registered when Slurm is installed (`tools/setup.sh --slurm`, which tools/test.sh runs);
# the script exits 77, shown as skipped, where it cannot start the daemons (not root).
if(NOT MGEDUMP_BUILD_TESTS)
  return()
endif()

# A NOTFOUND result is searched again at the next configure, so installing Slurm later is enough.
find_program(MGEDUMP_SLURMCTLD slurmctld PATHS /usr/sbin /usr/local/sbin)
if(NOT MGEDUMP_SLURMCTLD)
  message(STATUS "slurm_test: not registered (no slurmctld; bash tools/setup.sh --slurm installs it)")
  return()
endif()

add_test(NAME slurm_test COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/slurm_test.sh $<TARGET_FILE:mgedump>)
# The script's own watchdog stops it at 600 s; ctest's limit is only the last resort.
set_tests_properties(slurm_test PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS slurm)
