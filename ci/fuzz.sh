#!/usr/bin/env bash
# fuzz.sh [SECONDS]: fuzz every reader of outside input with libFuzzer (clang's
# -fsanitize=fuzzer with AddressSanitizer and UBSan) for SECONDS each (default 60).
# Today: the command-line parser, the checkpoint reader, bfs's graph readers, tetfv's gmsh
# reader with its geometry checks, particles' --input reader and its --domain voxel-mask
# reader with the setup after it (tests/fuzz/fuzz_*.c); KIT_FUZZ_HARNESSES="msh
# particles_input" picks some. One input running over 10 s counts as a hang (a timeout-*
# artifact), one asking for over 2 GB as a crash (oom-*). New corpus entries stay in
# build-fuzz/; a crashing input is copied into tests/fuzz/regressions/, which the ordinary
# test suite replays (tests/CMakeLists.txt, fuzz_replay_*).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
command -v clang >/dev/null || { echo "fuzz.sh: needs clang and libclang-rt-14-dev (apt-get install clang libclang-rt-14-dev)"; exit 1; }
mkdir -p build-fuzz
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Icommon/include"
# The checking helpers (kit_malloc, kit_fault) sit beside MPI calls: compile against MPICH.
mpi=""
for tok in $(mpicc -show); do case $tok in -I*|-L*|-l*) mpi="$mpi $tok" ;; esac; done
sources() {
  case $1 in
    options) echo "common/src/options.c" ;;
    checkpoint) echo "common/src/checkpoint.c common/src/input.c common/src/check.c" ;;
    bfs_graph) echo "-fopenmp -Iminiapps/bfs miniapps/bfs/graph_io.c miniapps/bfs/generate.c miniapps/bfs/build.c common/src/input.c common/src/check.c" ;;
    msh) echo "-Iminiapps/tetfv miniapps/tetfv/msh_io.c miniapps/tetfv/mesh.c miniapps/tetfv/assemble.c miniapps/tetfv/partition.c common/src/graph_part.c common/src/input.c common/src/check.c -lmetis" ;;
    particles_input) echo "-Iminiapps/particles miniapps/particles/init.c miniapps/particles/cells.c miniapps/particles/exchange.c miniapps/particles/frontier.c common/src/input.c common/src/check.c common/src/slab.c" ;;
    particles_mask) echo "$(sources particles_input) miniapps/particles/geometry.c common/src/graph_part.c -lmetis" ;;
  esac
}
for h in ${KIT_FUZZ_HARNESSES:-options checkpoint bfs_graph msh particles_input particles_mask}; do
  # shellcheck disable=SC2046
  clang $flags tests/fuzz/fuzz_$h.c $(sources $h) $mpi -lm -o build-fuzz/fuzz_$h
  mkdir -p build-fuzz/corpus_$h build-fuzz/crash_$h
  # Seeds: the harness's own corpus, and for the graph reader the bfs test graphs.
  case $h in
    bfs_graph) seeds=tests/bfs/data ;;
    msh) seeds=tests/tetfv/data ;;
    particles_input) seeds=tests/particles/inputs ;;
    particles_mask) seeds=tests/particles/inputs/masks ;;
    *) seeds=tests/fuzz/corpus/$h ;;
  esac
  cp -n "$seeds"/* build-fuzz/corpus_$h/ 2>/dev/null || true
  set +e
  build-fuzz/fuzz_$h -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build-fuzz/crash_$h/ \
    build-fuzz/corpus_$h 2>&1 | tee build-fuzz/fuzz_$h.log | grep -E "^stat::number_of_executed_units|^stat::new_units_added|Done|ERROR|SUMMARY"
  rc=${PIPESTATUS[0]}
  set -e
  for c in build-fuzz/crash_$h/*; do [ -f "$c" ] && cp "$c" "tests/fuzz/regressions/$h-$(basename "$c")" && echo "fuzz.sh: crash kept as tests/fuzz/regressions/$h-$(basename "$c")"; done
  [ "$rc" -eq 0 ] || { echo "fuzz.sh: fuzz_$h failed (exit $rc)"; exit 1; }
done
echo "fuzz.sh: no crash in ${secs}s per harness"
