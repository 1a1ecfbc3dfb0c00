# Hostile input: the files a user names (docs/files-and-errors.md). Every reader goes through
# kit_open_input and kit_lines (common/include/kit/input.h): a FIFO, a device, a directory,
# an over-long line, a NUL byte each end the run with exit 2 and one line naming the file,
# the line and the rule, within seconds; one rank that cannot read a file (or reads other
# bytes), and ranks given different arguments, end the whole job the same way, never hang it.
# Scripts: tests/hostile/inputs_*.sh (set-up a CMake argument list cannot make).

# The helpers themselves, alone and with two ranks (the collective verdicts, one rank failing).
kit_add_gtest(test_input SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_input.cpp LIBS kit LABELS unit)
add_test(NAME inputs_unit_np2 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${KIT_MPIEXEC_FLAGS}
         $<TARGET_FILE:test_input>)
set_tests_properties(inputs_unit_np2 PROPERTIES LABELS "mpi;unit" PROCESSORS 2 TIMEOUT 60)

set(_in ${CMAKE_SOURCE_DIR}/tests/hostile)
# Each reader and what it is given: app, flag, the rest of a small run.
set(_readers "tetfv|--mesh|" "bfs|--graph|" "particles|--input|--rc 2.0" "particles|--domain|--rc 1.0")
foreach(r ${_readers})
  hostile_fields("${r}" app flag extra)
  if(NOT TARGET ${app})
    continue()
  endif()
  string(REPLACE "-" "" f "${flag}")
  separate_arguments(extra)
  # /dev/zero, a directory, a FIFO (must not block in open), each: exit 2 naming what it is.
  kit_add_app_test(inputs_${app}_${f}_devzero APP ${app} LABELS cpu EXPECT_EXIT 2
    EXPECT_OUTPUT "^${app}: ${flag} '?/dev/zero'?: is not a regular file \\(a character device\\)$"
    ARGS --variant cpu ${flag} /dev/zero ${extra})
  kit_add_app_test(inputs_${app}_${f}_directory APP ${app} LABELS cpu EXPECT_EXIT 2
    EXPECT_OUTPUT "^${app}: ${flag} '?${CMAKE_SOURCE_DIR}/tests'?: is a directory$"
    ARGS --variant cpu ${flag} ${CMAKE_SOURCE_DIR}/tests ${extra})
  add_test(NAME inputs_${app}_${f}_fifo
           COMMAND sh ${_in}/inputs_fifo.sh $<TARGET_FILE:${app}> ${flag} --variant cpu ${extra})
  # One rank of an MPMD launch cannot read the file (run in a folder without it): exit 2 on
  # every rank with that rank's reason, not a hang (tetfv and bfs read on rank 0 alone: they
  # run); and a copy that differs on one rank.
  add_test(NAME inputs_${app}_${f}_one_rank_missing
           COMMAND sh ${_in}/inputs_mpmd.sh missing ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:${app}> ${flag}
                   ${CMAKE_SOURCE_DIR} --variant cpu ${extra})
  set_tests_properties(inputs_${app}_${f}_fifo PROPERTIES LABELS cpu TIMEOUT 60 SKIP_RETURN_CODE 77)
  set_tests_properties(inputs_${app}_${f}_one_rank_missing PROPERTIES LABELS mpi PROCESSORS 2 TIMEOUT 60)
  # A rank-0 reader (tetfv, bfs) broadcasts what it read: another copy elsewhere is unused.
  if(app STREQUAL "particles")
    add_test(NAME inputs_${app}_${f}_one_rank_differs
             COMMAND sh ${_in}/inputs_mpmd.sh differs ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:${app}> ${flag}
                     ${CMAKE_SOURCE_DIR} --variant cpu ${extra})
    set_tests_properties(inputs_${app}_${f}_one_rank_differs PROPERTIES LABELS mpi PROCESSORS 2 TIMEOUT 60)
  endif()
  # Long lines and NUL bytes: the file, the line and the rule.
  add_test(NAME inputs_${app}_${f}_long_line
           COMMAND sh ${_in}/inputs_lines.sh long $<TARGET_FILE:${app}> ${flag} ${CMAKE_SOURCE_DIR} --variant cpu ${extra})
  add_test(NAME inputs_${app}_${f}_nul_byte
           COMMAND sh ${_in}/inputs_lines.sh nul $<TARGET_FILE:${app}> ${flag} ${CMAKE_SOURCE_DIR} --variant cpu ${extra})
  add_test(NAME inputs_${app}_${f}_control_bytes
           COMMAND sh ${_in}/inputs_lines.sh escape $<TARGET_FILE:${app}> ${flag} ${CMAKE_SOURCE_DIR} --variant cpu ${extra})
  set_tests_properties(inputs_${app}_${f}_long_line inputs_${app}_${f}_nul_byte inputs_${app}_${f}_control_bytes
                       PROPERTIES LABELS cpu TIMEOUT 60)
endforeach()

# Different arguments per rank (MPMD): one line, exit 2 on every rank, before any parsing.
if(TARGET laplace)
  add_test(NAME inputs_mpmd_different_arguments
           COMMAND sh ${_in}/inputs_mpmd.sh argv ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:laplace> --size
                   ${CMAKE_SOURCE_DIR} --variant cpu)
  set_tests_properties(inputs_mpmd_different_arguments PROPERTIES LABELS mpi PROCESSORS 2 TIMEOUT 60)
  if(TARGET ising)
    add_test(NAME inputs_mpmd_different_apps
             COMMAND sh ${_in}/inputs_mpmd.sh apps ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:laplace> --size
                     ${CMAKE_SOURCE_DIR} --variant cpu)
    set_tests_properties(inputs_mpmd_different_apps PROPERTIES LABELS mpi PROCESSORS 2 TIMEOUT 60)
  endif()
  # The ceiling cache: a device, a FIFO (reading and appending must not block), a directory,
  # a damaged line, a full disk: one warning, the ceiling measured, the run passes.
  add_test(NAME inputs_ceiling_cache COMMAND sh ${_in}/inputs_ceiling.sh $<TARGET_FILE:laplace>)
  set_tests_properties(inputs_ceiling_cache PROPERTIES LABELS cpu TIMEOUT 120)
endif()
