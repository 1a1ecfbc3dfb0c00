#!/usr/bin/env bash
# run_cpu.sh [BIN]: lab 10's CPU-machine runs (the cpu variant, 1 thread per rank).
#   cells-2.txt, cells-4.txt : --dump-cells of the branching tube split by METIS over 2 and 4
#                              ranks (plot.py draws them into decomposition.png)
#   traffic.jsonl            : the tube (12,592 particles) and the periodic box of 13,500
#                              on 1, 2 and 4 ranks: neighbouring ranks, frontier particles sent
#                              by the selective scheme and by send-to-all-neighbours
# Every file is rewritten. Run from the repository root.
set -e
bin=${1:-build/bin/particles}
here=$(cd "$(dirname "$0")" && pwd)
mpirun="$here/../scripts/mpirun.sh"
export OMP_NUM_THREADS=1
out=$here/traffic.jsonl
rm -f "$out" "$here"/cells-*.txt
tube="--domain tube --cells 32,24,12 --iters 100 --reps 1 --warmup 0 --allpairs-max 0"
box="--cells 15 --iters 100 --reps 1 --warmup 0 --allpairs-max 0"
for np in 1 2 4; do
  cells=""
  [ "$np" -gt 1 ] && cells="--dump-cells $here/cells-$np.txt"
  bash "$mpirun" $np "$bin" $tube $cells --json "$out" > /dev/null
  bash "$mpirun" $np "$bin" $box --json "$out" > /dev/null
done
