# Hostile outputs (docs/files-and-errors.md): --json, --trace, stdout and every output path.
# Paths that cannot work are refused before the run (kit_check_output_file, exit 2, one line
# naming the flag and the path); a result that could not be written is a failed run (exit 3
# with the reason: /dev/full gives ENOSPC); the --json line is whole or absent (kit_append_line,
# tested with a file size limit in tests/unit/test_outputs.cpp) and valid JSON for any bytes.
# Scripts: tests/hostile/outputs_*.sh.

kit_add_gtest(test_outputs SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_outputs.cpp LIBS kit LABELS unit)

set(_out ${CMAKE_SOURCE_DIR}/tests/hostile)
# Each app, a small run, and every output flag it has.
set(_run_laplace   --variant cpu --size 8 --iters 2 --warmup 0 --reps 1)
set(_run_ising     --variant cpu --size 8 --iters 2 --warmup 0 --reps 1)
set(_run_lbm       --variant cpu --size 8 --iters 2 --warmup 0 --reps 1)
set(_run_tetfv     --variant cpu --mesh box:2 --iters 2 --warmup 0 --reps 1)
set(_run_bfs       --variant cpu --scale 6 --roots 1)
set(_run_particles --variant cpu --cells 4 --rc 2.0 --iters 2 --warmup 0 --reps 1)
set(_outs_laplace   --json --trace --dump --checkpoint)
set(_outs_ising     --json --trace --dump --checkpoint)
set(_outs_lbm       --json --trace --dump --checkpoint --vtk --profile)
set(_outs_tetfv     --json --trace --dump --checkpoint)
set(_outs_bfs       --json --trace --dump-parents)
set(_outs_particles --json --trace --dump --checkpoint --dump-cells --dump-lammps)

foreach(app laplace ising lbm tetfv bfs particles)
  if(NOT TARGET ${app})
    continue()
  endif()
  foreach(flag ${_outs_${app}})
    string(REPLACE "-" "" f "${flag}")
    # "", a directory, "dir/", a missing directory, a FIFO: exit 2 before the run.
    add_test(NAME outputs_${app}_${f}_paths COMMAND sh ${_out}/outputs_paths.sh $<TARGET_FILE:${app}> ${flag} ${_run_${app}})
    set_tests_properties(outputs_${app}_${f}_paths PROPERTIES LABELS cpu TIMEOUT 120 SKIP_RETURN_CODE 77
      ENVIRONMENT "OMP_NUM_THREADS=1;KIT_CEILING_CACHE=${CMAKE_BINARY_DIR}/ceilings.cache")
  endforeach()
  # The report to a full stdout, and each output written in place to /dev/full: exit 3.
  foreach(what stdout --json --trace)
    string(REPLACE "-" "" f "${what}")
    add_test(NAME outputs_${app}_${f}_full COMMAND sh ${_out}/outputs_full.sh ${what} $<TARGET_FILE:${app}> ${_run_${app}})
    set_tests_properties(outputs_${app}_${f}_full PROPERTIES LABELS cpu TIMEOUT 60 SKIP_RETURN_CODE 77
      ENVIRONMENT "OMP_NUM_THREADS=1;KIT_CEILING_CACHE=${CMAKE_BINARY_DIR}/ceilings.cache")
  endforeach()
endforeach()

# The dumps and files written from the whole field, to /dev/full: exit 3 with the reason.
set(_dumps "laplace|--dump" "ising|--dump" "lbm|--dump" "lbm|--vtk" "lbm|--profile" "tetfv|--dump"
           "bfs|--dump-parents" "particles|--dump" "particles|--dump-cells" "particles|--dump-lammps")
foreach(d ${_dumps})
  hostile_fields("${d}" app flag)
  if(NOT TARGET ${app})
    continue()
  endif()
  string(REPLACE "-" "" f "${flag}")
  add_test(NAME outputs_${app}_${f}_full COMMAND sh ${_out}/outputs_full.sh ${flag} $<TARGET_FILE:${app}> ${_run_${app}})
  set_tests_properties(outputs_${app}_${f}_full PROPERTIES LABELS cpu TIMEOUT 60 SKIP_RETURN_CODE 77
    ENVIRONMENT "OMP_NUM_THREADS=1;KIT_CEILING_CACHE=${CMAKE_BINARY_DIR}/ceilings.cache")
endforeach()

if(TARGET laplace)
  # Whole lines after a torn one, valid JSON for a value that is not UTF-8, --json /dev/null.
  add_test(NAME outputs_laplace_json_lines
           COMMAND sh ${_out}/outputs_json.sh ${Python3_EXECUTABLE} $<TARGET_FILE:laplace> ${_run_laplace})
  set_tests_properties(outputs_laplace_json_lines PROPERTIES LABELS cpu TIMEOUT 60
    ENVIRONMENT "OMP_NUM_THREADS=1;KIT_CEILING_CACHE=${CMAKE_BINARY_DIR}/ceilings.cache")
  # Two ranks: rank 0's refusal of the path ends every rank with exit 2, none hangs.
  kit_add_app_test(outputs_laplace_json_directory_np2 APP laplace NP 2 LABELS mpi EXPECT_EXIT 2
    EXPECT_OUTPUT "^laplace: --json: cannot open '${CMAKE_CURRENT_BINARY_DIR}' for writing: is a directory$"
    ARGS ${_run_laplace} --json ${CMAKE_CURRENT_BINARY_DIR})
  set_property(TEST outputs_laplace_json_directory_np2 PROPERTY TIMEOUT 60)
  # A device written in place is fine for --json and --trace; stdout to /dev/null too.
  kit_add_app_test(outputs_laplace_devnull APP laplace LABELS cpu EXPECT_EXIT 0
    EXPECT_OUTPUT "verification: +PASSED" ARGS ${_run_laplace} --json /dev/null --trace /dev/null)
  set_property(TEST outputs_laplace_devnull PROPERTY TIMEOUT 60)
endif()
