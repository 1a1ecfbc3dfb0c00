#!/usr/bin/env bash
# run_partition.sh [--outdir DIR] [BIN]: lab 09's CPU-machine runs of Rossetti's two missing
# pieces, the cpu variant, one OpenMP thread per rank, every search validated (the five
# Graph500 rules and the oracle's levels):
#   1. --partition block against cyclic on the Kronecker graph: scales 16 and 18, 2 ranks
#      (1x2) and 4 ranks (2x2), 16 keys each, three rounds of the two partitions one after the
#      other (TEPS, edge imbalance, bytes) -> DIR/partition-cpu.jsonl;
#   2. --frontier-table at scale 16, 64 keys: 1 rank, then 2 and 4 ranks with each partition
#      (the slides' next-level frontier arrays, m and n per level, and unique_ratio), and
#      2 ranks with list messages and top-down levels only (the kit's fold bytes beside
#      them) -> DIR/frontier-cpu.jsonl;
#   3. block against cyclic on R-MAT graphs whose labels are not permuted (rmat_unpermuted.py,
#      scale 16, edgefactor 16, seed 1: in generation order, and relabelled by decreasing
#      degree), 2 and 4 ranks, 16 keys -> DIR/rmat-cpu.jsonl. The two edge lists (about 14 MB
#      each) are written to DIR while they are used and removed at the end.
# The full stdout of every run goes to DIR/partition-cpu.log after a '### ' line naming the
# command. DIR defaults to labs/out/09-bfs-bitmap/ (git-ignored, made if missing); the
# committed copies in this folder change only with --outdir labs/09-bfs-bitmap.
set -u
here=$(cd "$(dirname "$0")" && pwd)
outdir=$here/../out/$(basename "$here")
if [ "${1:-}" = "--outdir" ]; then
  [ $# -ge 2 ] || { echo "run_partition.sh: --outdir needs a folder" >&2; exit 2; }
  outdir=$2; shift 2
fi
bin=${1:-build/bin/bfs}
log=$outdir/partition-cpu.log
mkdir -p "$outdir"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
: > "$log"; : > "$outdir/partition-cpu.jsonl"; : > "$outdir/frontier-cpu.jsonl"; : > "$outdir/rmat-cpu.jsonl"
run() { # run JSONL NP ARGS...
  local jsonl=$1 np=$2; shift 2
  # The grids the lab measured (1x2, 2x2), named: bfs's default became P x 1 afterwards.
  local grid=""
  case $np in 2) grid="--grid 1x2" ;; 4) grid="--grid 2x2" ;; esac
  local cmd="mpiexec -n $np $bin --variant cpu $grid $* --quiet --json -"
  echo "run_partition.sh: [${SECONDS}s] $np ranks, $*" >&2
  echo "### OMP_NUM_THREADS=1 $cmd" >> "$log"
  OMP_NUM_THREADS=1 $cmd > "$tmp" 2>&1
  local rc=$?
  cat "$tmp" >> "$log"
  grep '^{"schema"' "$tmp" >> "$jsonl"
  [ $rc -eq 0 ] || echo "run failed ($rc): $cmd" >&2
}
for np in 2 4; do
  for scale in 16 18; do
    for round in 1 2 3; do
      for part in block cyclic; do
        run "$outdir/partition-cpu.jsonl" $np --scale $scale --roots 16 --partition $part
      done
    done
  done
done
run "$outdir/frontier-cpu.jsonl" 1 --scale 16 --roots 64 --frontier-table
for np in 2 4; do
  for part in block cyclic; do
    run "$outdir/frontier-cpu.jsonl" $np --scale 16 --roots 64 --partition $part --frontier-table
  done
done
# Lists only and top-down only: the fold's bytes as the kit sends them, beside the slides' arrays.
run "$outdir/frontier-cpu.jsonl" 2 --scale 16 --roots 64 --transfer list --direction top-down --frontier-table
for order in gen degree; do
  el=$outdir/rmat16-$order.el
  python3 "$here/rmat_unpermuted.py" 16 16 1 "$el" $([ $order = degree ] && echo --degree-order)
  for np in 2 4; do
    for part in block cyclic; do
      run "$outdir/rmat-cpu.jsonl" $np --graph "$el" --roots 16 --partition $part
    done
  done
  rm -f "$el"
done
echo "run_partition.sh: wrote $log, partition-cpu.jsonl, frontier-cpu.jsonl and rmat-cpu.jsonl in $outdir" >&2
