# Hostile input: checkpoints (docs/files-and-errors.md; common/include/kit/checkpoint.h,
# format 3). One flipped bit anywhere in a checkpoint, the step counter and the name's
# padding included, is refused at restart (exit 2); the writer never follows a planted
# symlink nor replaces a FIFO, device or link (refused before the run, exit 2); two runs
# sharing a checkpoint path both succeed; a failed write says errno's text (exit 3); a
# --restart from a FIFO is refused at once (exit 2). Scripts: tests/hostile/checkpoint_*.sh.
set(_ck ${CMAKE_SOURCE_DIR}/tests/hostile)
# Each checkpointing app with a small run (no --iters: the scripts give it).
set(_ck_apps "laplace|--variant cpu --size 3,2,2" "ising|--variant cpu --size 2,2,2"
             "lbm|--variant cpu --size 3,2,4" "particles|--variant cpu --cells 5,4,6 --rc 2.0"
             "tetfv|--variant cpu --mesh box:3 --init random")
foreach(a ${_ck_apps})
  hostile_fields("${a}" app args)
  if(NOT TARGET ${app})
    continue()
  endif()
  separate_arguments(args)
  set(_args_${app} ${args})
  # A flipped step bit (format 2 restarted from the wrong step) and a flipped name padding.
  add_test(NAME checkpoint_${app}_step_flip COMMAND sh ${_ck}/checkpoint_flip.sh step $<TARGET_FILE:${app}> ${args})
  set(_ck_tests checkpoint_${app}_step_flip)
  # Paths the writer must refuse or report; a FIFO --restart must not block.
  foreach(mode fifo restart-fifo reason)
    add_test(NAME checkpoint_${app}_${mode}
             COMMAND sh ${_ck}/checkpoint_paths.sh ${mode} $<TARGET_FILE:${app}> ${args})
    list(APPEND _ck_tests checkpoint_${app}_${mode})
  endforeach()
  set_tests_properties(${_ck_tests} PROPERTIES LABELS cpu TIMEOUT 60 SKIP_RETURN_CODE 77)
endforeach()

# Every byte of a whole checkpoint (144 bytes: ising's 8 spins), one bit flipped in each.
if(TARGET ising)
  add_test(NAME checkpoint_ising_every_byte_flip
           COMMAND sh ${_ck}/checkpoint_flip.sh all $<TARGET_FILE:ising> ${_args_ising})
  set_tests_properties(checkpoint_ising_every_byte_flip PROPERTIES LABELS cpu TIMEOUT 180)
endif()
# The writer's path handling is one function (kit_checkpoint_write) for all five apps: each
# case once, on one app. shared needs overlapping runs, so it is not run beside others.
foreach(c "planted|laplace" "symlink|lbm" "device|particles" "shared|ising")
  hostile_fields("${c}" mode app)
  if(NOT TARGET ${app})
    continue()
  endif()
  add_test(NAME checkpoint_${app}_${mode}
           COMMAND sh ${_ck}/checkpoint_paths.sh ${mode} $<TARGET_FILE:${app}> ${_args_${app}})
  set_tests_properties(checkpoint_${app}_${mode} PROPERTIES LABELS cpu TIMEOUT 60 SKIP_RETURN_CODE 77)
endforeach()
if(TEST checkpoint_ising_shared)
  set_tests_properties(checkpoint_ising_shared PROPERTIES RUN_SERIAL TRUE)
endif()
if(TARGET laplace)
  # A format 2 file (the old seed corpus' valid laplace checkpoint) is refused by version.
  kit_add_app_test(checkpoint_laplace_format2 APP laplace LABELS cpu EXPECT_EXIT 2
    EXPECT_OUTPUT "^laplace: --restart '.*/version2': checkpoint format version 2, this build reads version 3$"
    ARGS --variant cpu --size 3,2,2 --iters 8 --restart ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/checkpoint/version2)
  # The pre-run check is collective: a directory as --checkpoint on two ranks, one line, exit 2.
  kit_add_app_test(checkpoint_laplace_directory_np2 APP laplace NP 2 LABELS mpi EXPECT_EXIT 2
    EXPECT_OUTPUT "^laplace: --checkpoint: cannot open '${CMAKE_SOURCE_DIR}/tests' for writing: is a directory, not a regular file$"
    ARGS --variant cpu --size 4,4,4 --checkpoint ${CMAKE_SOURCE_DIR}/tests)
  set_tests_properties(checkpoint_laplace_format2 checkpoint_laplace_directory_np2 PROPERTIES TIMEOUT 60)
endif()
