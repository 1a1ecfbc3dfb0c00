#!/usr/bin/env bash
# run_cpu.sh [--outdir DIR] [BIN] [LOG] [JSONL]: lab 09's CPU-machine runs. 4 MPI ranks on a
# 2x2 grid, one OpenMP thread each, the cpu variant, scales 14-16, --transfer list, bitmap and
# auto, 8 roots. Every search is validated (the five Graph500 rules and the oracle's levels).
# The full stdout of each run (the per-level table of the first search, then the JSON line
# from --json -) is appended to LOG, after a '### ' line naming the command; the JSON lines
# alone go to JSONL. LOG and JSONL default to DIR/cpu-4rank.log and DIR/cpu-4rank.jsonl, DIR
# to labs/out/09-bfs-bitmap/ (git-ignored, made if missing); the committed copies in this
# folder change only with --outdir labs/09-bfs-bitmap.
set -u
here=$(cd "$(dirname "$0")" && pwd)
outdir=$here/../out/$(basename "$here")
if [ "${1:-}" = "--outdir" ]; then
  [ $# -ge 2 ] || { echo "run_cpu.sh: --outdir needs a folder" >&2; exit 2; }
  outdir=$2; shift 2
fi
bin=${1:-build/bin/bfs}
log=${2:-$outdir/cpu-4rank.log}
jsonl=${3:-$outdir/cpu-4rank.jsonl}
mkdir -p "$outdir" "$(dirname "$log")" "$(dirname "$jsonl")"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
: > "$log"; : > "$jsonl"
for scale in 14 15 16; do
  for t in list bitmap auto; do
    cmd="mpiexec -n 4 $bin --variant cpu --scale $scale --grid 2x2 --transfer $t --roots 8 --json -"
    echo "run_cpu.sh: [${SECONDS}s] scale $scale, --transfer $t" >&2
    echo "### OMP_NUM_THREADS=1 $cmd" >> "$log"
    OMP_NUM_THREADS=1 $cmd > "$tmp" 2>&1
    rc=$?
    cat "$tmp" >> "$log"
    grep '^{"schema"' "$tmp" >> "$jsonl"
    [ $rc -eq 0 ] || echo "run failed ($rc): $cmd" >&2
  done
done
echo "run_cpu.sh: wrote $log and $jsonl" >&2
