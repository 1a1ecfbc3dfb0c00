#!/usr/bin/env bash
# run_cpu.sh [--outdir DIR] [BIN]: lab 10's CPU-machine runs (the cpu variant, 1 thread per rank).
#   cells-2.txt, cells-4.txt : --dump-cells of the branching tube split by METIS over 2 and 4
#                              ranks (plot.py draws them into decomposition.png)
#   traffic.jsonl            : the tube (12,592 particles) and the periodic box of 13,500
#                              on 1, 2 and 4 ranks: neighbouring ranks, frontier particles sent
#                              by the selective scheme and by send-to-all-neighbours
# Every file is rewritten in DIR (default labs/out/10-particles-irregular/, git-ignored, made
# if missing); the committed copies in this folder change only with --outdir
# labs/10-particles-irregular. Run from the repository root.
set -e
here=$(cd "$(dirname "$0")" && pwd)
outdir=$here/../out/$(basename "$here")
if [ "${1:-}" = "--outdir" ]; then
  [ $# -ge 2 ] || { echo "run_cpu.sh: --outdir needs a folder" >&2; exit 2; }
  outdir=$2; shift 2
fi
bin=${1:-build/bin/particles}
mkdir -p "$outdir"
mpirun="$here/../scripts/mpirun.sh"
export OMP_NUM_THREADS=1
out=$outdir/traffic.jsonl
rm -f "$out" "$outdir"/cells-*.txt
tube="--domain tube --cells 32,24,12 --iters 100 --reps 1 --warmup 0 --allpairs-max 0"
box="--cells 15 --iters 100 --reps 1 --warmup 0 --allpairs-max 0"
for np in 1 2 4; do
  echo "run_cpu.sh: [${SECONDS}s] tube and box on $np rank(s)" >&2
  cells=""
  [ "$np" -gt 1 ] && cells="--dump-cells $outdir/cells-$np.txt"
  bash "$mpirun" $np "$bin" $tube $cells --json "$out" > /dev/null
  bash "$mpirun" $np "$bin" $box --json "$out" > /dev/null
done
echo "run_cpu.sh: wrote $out and $outdir/cells-2.txt, cells-4.txt" >&2
