#!/usr/bin/env bash
# run_cpu.sh [BIN]: lab 08's CPU-machine runs (the cpu variant, 1 thread per rank).
#   cpu-partition.jsonl : separator and ghost counts against rank count (box:16, 24, 32,
#                         ordered and shuffled box:24), 1-4 ranks, oracle on
#   cpu-reorder.jsonl   : GFLOP/s on the shuffled box:40 for each interior order, 1 rank x 1
#                         thread, three passes interleaved (plot.py keeps the fastest)
# Both files are rewritten. Run from the repository root.
set -e
bin=${1:-build/bin/tetfv}
here=$(cd "$(dirname "$0")" && pwd)
mpirun="$here/../scripts/mpirun.sh"
export OMP_NUM_THREADS=1
part=$here/cpu-partition.jsonl; reo=$here/cpu-reorder.jsonl
rm -f "$part" "$reo"
for n in 16 24 32; do
  for np in 1 2 3 4; do
    bash "$mpirun" $np "$bin" --mesh box:$n --iters 10 --reps 1 --json "$part" > /dev/null
  done
done
for np in 2 3 4; do
  bash "$mpirun" $np "$bin" --mesh box:24 --shuffle --iters 10 --reps 1 --json "$part" > /dev/null
done
big="--mesh box:40 --iters 40 --reps 5 --skip-oracle"
for pass in 1 2 3; do
  "$bin" $big --reorder none --json "$reo" > /dev/null
  for r in none rcm metis; do "$bin" $big --shuffle --reorder $r --json "$reo" > /dev/null; done
  "$bin" $big --shuffle --reorder metis --block 64 --json "$reo" > /dev/null
done
