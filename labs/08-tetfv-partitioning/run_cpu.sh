#!/usr/bin/env bash
# run_cpu.sh [--outdir DIR] [BIN]: lab 08's CPU-machine runs (the cpu variant, 1 thread per rank).
#   cpu-partition.jsonl : separator and ghost counts against rank count (box:16, 24, 32,
#                         ordered and shuffled box:24), 1-4 ranks, oracle on
#   cpu-reorder.jsonl   : GFLOP/s on the shuffled box:40 for each interior order, 1 rank x 1
#                         thread, three passes interleaved (plot.py keeps the fastest)
# Both files are rewritten in DIR (default labs/out/08-tetfv-partitioning/, git-ignored, made
# if missing); the committed copies in this folder change only with --outdir
# labs/08-tetfv-partitioning. One line per run on stderr: the whole takes minutes on 2 cores.
set -e
here=$(cd "$(dirname "$0")" && pwd)
outdir=$here/../out/$(basename "$here")
if [ "${1:-}" = "--outdir" ]; then
  [ $# -ge 2 ] || { echo "run_cpu.sh: --outdir needs a folder" >&2; exit 2; }
  outdir=$2; shift 2
fi
bin=${1:-build/bin/tetfv}
mkdir -p "$outdir"
mpirun="$here/../scripts/mpirun.sh"
export OMP_NUM_THREADS=1
part=$outdir/cpu-partition.jsonl; reo=$outdir/cpu-reorder.jsonl
rm -f "$part" "$reo"
say() { echo "run_cpu.sh: [${SECONDS}s] $*" >&2; }
for n in 16 24 32; do
  for np in 1 2 3 4; do
    say "box:$n on $np rank(s)"
    bash "$mpirun" $np "$bin" --mesh box:$n --iters 10 --reps 1 --json "$part" > /dev/null
  done
done
for np in 2 3 4; do
  say "box:24 --shuffle on $np ranks"
  bash "$mpirun" $np "$bin" --mesh box:24 --shuffle --iters 10 --reps 1 --json "$part" > /dev/null
done
big="--mesh box:40 --iters 40 --reps 5 --skip-oracle"
for pass in 1 2 3; do
  say "reorder pass $pass of 3 (box:40: none, shuffled none, rcm, metis, metis --block 64)"
  "$bin" $big --reorder none --json "$reo" > /dev/null
  for r in none rcm metis; do "$bin" $big --shuffle --reorder $r --json "$reo" > /dev/null; done
  "$bin" $big --shuffle --reorder metis --block 64 --json "$reo" > /dev/null
done
say "wrote $part and $reo"
