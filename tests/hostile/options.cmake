# Hostile options (docs/files-and-errors.md): numbers an option cannot take, abbreviations
# that name several options, two spellings of one setting, and the environment (KIT_FAULT,
# OMP_NUM_THREADS) checked before anything runs. Each: exit 2 and one line naming the rule.
# The parser's own cases are in tests/unit/test_outputs.cpp (HostileOptions.*).

if(TARGET laplace)
  set(_small --variant cpu --size 8 --iters 2 --warmup 0 --reps 1)
  # strtoull took " -1" as 2^64-1: a number starts with a digit (unsigned: no sign either).
  kit_add_app_test(options_seed_space_minus APP laplace LABELS cpu EXPECT_EXIT 2
    EXPECT_OUTPUT "^laplace: --seed: ' -1' is not a non-negative integer$" ARGS ${_small} --seed " -1")
  kit_add_app_test(options_iters_space APP laplace LABELS cpu EXPECT_EXIT 2
    EXPECT_OUTPUT "^laplace: --iters: ' 5' is not an integer$" ARGS ${_small} --iters " 5")
  # getopt_long takes any unambiguous prefix; an ambiguous one lists the candidates.
  kit_add_app_test(options_ambiguous_prefix APP laplace LABELS cpu EXPECT_EXIT 2
    EXPECT_OUTPUT "^laplace: ambiguous option '--i' \\(could be --iters, --init\\)$" ARGS ${_small} --i 5)
  # KIT_FAULT=alloc@abc was rank 0 (atoi): a malformed value is refused, on every rank.
  foreach(np 1 2)
    kit_add_app_test(options_kit_fault_malformed_np${np} APP laplace NP ${np} LABELS mpi EXPECT_EXIT 2
      EXPECT_OUTPUT "^kit: KIT_FAULT='alloc@abc': the rank after '@' must be a non-negative integer$" ARGS ${_small})
    set_property(TEST options_kit_fault_malformed_np${np} APPEND PROPERTY ENVIRONMENT "KIT_FAULT=alloc@abc")
    set_property(TEST options_kit_fault_malformed_np${np} PROPERTY TIMEOUT 60)
  endforeach()
  # OMP_NUM_THREADS beyond any machine made libgomp fail and the run end "verification failed".
  kit_add_app_test(options_omp_num_threads_huge APP laplace LABELS cpu EXPECT_EXIT 2 THREADS 99999999999
    EXPECT_OUTPUT "^kit: OMP_NUM_THREADS='99999999999': expected threads per level, each an integer in \\[1, 4096\\]$"
    ARGS ${_small})
  kit_add_app_test(options_omp_num_threads_text APP laplace LABELS cpu EXPECT_EXIT 2 THREADS "two"
    EXPECT_OUTPUT "^kit: OMP_NUM_THREADS='two': expected threads per level" ARGS ${_small})
  # A list (one count per nesting level) is what OpenMP defines: it runs.
  kit_add_app_test(options_omp_num_threads_list APP laplace LABELS cpu EXPECT_EXIT 0 THREADS "2,1"
    EXPECT_OUTPUT "verification: +PASSED" ARGS ${_small})
  foreach(t options_seed_space_minus options_iters_space options_ambiguous_prefix options_omp_num_threads_huge
            options_omp_num_threads_text options_omp_num_threads_list)
    set_property(TEST ${t} PROPERTY TIMEOUT 60)
  endforeach()
endif()
if(TARGET ising)
  # --sweeps, ising's old second spelling of --iters, is gone: a script still using it is
  # refused, never run with the default sweep count.
  kit_add_app_test(options_sweeps_removed APP ising LABELS cpu EXPECT_EXIT 2
    EXPECT_OUTPUT "^ising: unknown option '--sweeps' .see --help.$"
    ARGS --variant cpu --size 8 --sweeps 5)
  set_property(TEST options_sweeps_removed PROPERTY TIMEOUT 60)
endif()
