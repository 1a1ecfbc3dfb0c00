#!/usr/bin/env bash
# run_cpu.sh [BIN] [LOG] [JSONL]: lab 09's CPU-machine runs. 4 MPI ranks on a 2x2 grid, one
# OpenMP thread each, the cpu variant, scales 14-16, --transfer list, bitmap and auto, 8 roots.
# Every search is validated (the five Graph500 rules and the oracle's levels). The full stdout
# of each run (the per-level table of the first search, then the JSON line from --json -) is
# appended to LOG, after a '### ' line naming the command; the JSON lines alone go to JSONL.
set -u
bin=${1:-build/bin/bfs}
log=${2:-labs/09-bfs-bitmap/cpu-4rank.log}
jsonl=${3:-labs/09-bfs-bitmap/cpu-4rank.jsonl}
: > "$log"; : > "$jsonl"
for scale in 14 15 16; do
  for t in list bitmap auto; do
    cmd="mpiexec -n 4 $bin --variant cpu --scale $scale --grid 2x2 --transfer $t --roots 8 --json -"
    echo "### OMP_NUM_THREADS=1 $cmd" >> "$log"
    OMP_NUM_THREADS=1 $cmd > /tmp/run_cpu.$$ 2>&1
    rc=$?
    cat /tmp/run_cpu.$$ >> "$log"
    grep '^{"schema"' /tmp/run_cpu.$$ >> "$jsonl"
    [ $rc -eq 0 ] || echo "run failed ($rc): $cmd" >&2
  done
done
rm -f /tmp/run_cpu.$$
