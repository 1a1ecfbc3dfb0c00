# Hostile input, round two: particles set-up (tests/hostile/CMakeLists.txt). Every count the
# box and --rc give is checked in 64 bits before the tiling is built (cells.c,
# pt_check_tiling), and an --input file with two particles closer than PT_MIN_SPACING is
# refused by a verdict all ranks share (problem.c, check_spacing). Each test wants exit 2 and
# its one line; before the fix the first died of a heap overflow (SIGSEGV, "malloc():
# invalid size"), the huge box asked for 18 exabytes (exit 3) and the close pairs blew up in
# the first step (exit 3, "moved more than one cell"). Files: tests/particles/inputs/.
set(_pt_in ${CMAKE_SOURCE_DIR}/tests/particles/inputs)

# name NP ranks, then the expected line and the app's arguments.
function(particles_hostile name np msg)
  kit_add_app_test(particles_hostile_${name} APP particles NP ${np} LABELS "cpu;mpi" EXPECT_EXIT 2
    EXPECT_OUTPUT "${msg}" ARGS --variant cpu ${ARGN})
  set_tests_properties(particles_hostile_${name} PROPERTIES TIMEOUT 60)
endfunction()

# Item 1: the int cell count of 65534 x 65534 x 3 cells wrapped (the issue's exact command).
set(_overflow "^particles: --rc 1 tiles the box 65534.5 x 65534.5 x 3.5 into 65534 x 65534 x 3 cells, 2.15e\\+10 with their one-cell shell, more than 67108864")
particles_hostile(cell_overflow 1 "${_overflow}" --input ${_pt_in}/cell_overflow.txt --iters 2 --rc 1.0)
particles_hostile(cell_overflow_np2 2 "${_overflow}" --input ${_pt_in}/cell_overflow.txt --iters 2 --rc 1.0)
# A box of 1e15 per edge: exit 2 with the cell count, not exit 3 after an 18-exabyte malloc.
set(_huge "^particles: --rc 1 tiles the box 1e\\+15 x 1e\\+15 x 1e\\+15 into 1000000 x 1000000 x 1000000 cells, 1e\\+18 with their one-cell shell, more than 67108864")
particles_hostile(huge_box 1 "${_huge}" --input ${_pt_in}/huge_box.txt --iters 2 --rc 1.0)
particles_hostile(huge_box_np2 2 "${_huge}" --input ${_pt_in}/huge_box.txt --iters 2 --rc 1.0)
# Within the int bound but 32 million cells a particle: a box of empty cells.
particles_hostile(sparse_box 1 "^particles: --rc 1 tiles the box 400 x 400 x 400 into 400 x 400 x 400 = 6.4e\\+07 cells for 2 particles, more than 4096 cells a particle"
  --input ${_pt_in}/sparse_box.txt --iters 2 --rc 1.0)
# Item 11: coincident particles, then close pairs whose particles two ranks own (across the
# face between them, and across the periodic face): every rank agrees on the first pair.
set(_coincident "^particles: --input [^ ]*coincident.txt: particles 1 and 3 are 0 apart, closer than 0.5")
particles_hostile(coincident 1 "${_coincident}" --input ${_pt_in}/coincident.txt --iters 2)
particles_hostile(coincident_np2 2 "${_coincident}" --input ${_pt_in}/coincident.txt --iters 2)
particles_hostile(close_across_np2 2 "^particles: --input [^ ]*close_across.txt: particles 0 and 1 are 0.206155 apart, closer than 0.5"
  --input ${_pt_in}/close_across.txt --iters 2 --ranks 2,1,1)
particles_hostile(close_periodic_np2 2 "^particles: --input [^ ]*close_periodic.txt: particles 1 and 3 are 0.15 apart, closer than 0.5"
  --input ${_pt_in}/close_periodic.txt --iters 2 --ranks 2,1,1)
particles_hostile(close_periodic_np3 3 "^particles: --input [^ ]*close_periodic.txt: particles 1 and 3 are 0.15 apart, closer than 0.5"
  --input ${_pt_in}/close_periodic.txt --iters 2 --ranks 3,1,1)
