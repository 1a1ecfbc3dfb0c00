#!/bin/sh
# threads_test.sh MPIEXEC NPFLAG APP: the OpenMP threads a rank takes (kit_threads_rule), on
# whatever machine runs it:
#   1. OMP_NUM_THREADS unset, 2 ranks: each takes max(1, cores / 2), recorded in the JSON line
#      ("threads"), where cores are the processors this process may use (nproc);
#   2. OMP_NUM_THREADS = cores, 2 ranks: twice the cores on one node, so one warning line
#      naming the oversubscription, and the run still passes.
mpiexec=$1; npflag=$2; app=$3
cores=$(nproc)
# Open MPI binds each of two ranks to one core: the ranks would then see two cores, not nproc's.
bind=""
"$mpiexec" --version 2>&1 | grep -qE 'Open MPI|OpenRTE' && bind="--bind-to none"
want=$((cores / 2)); [ "$want" -ge 1 ] || want=1
out=$(env -u OMP_NUM_THREADS "$mpiexec" $bind "$npflag" 2 "$app" --variant cpu --iters 2 --reps 1 --json - 2>&1) || {
  printf '%s\n' "$out"; echo "threads_test.sh: the unset run failed" >&2; exit 1; }
got=$(printf '%s\n' "$out" | grep '^{' | tail -1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["threads"])')
[ "$got" = "$want" ] || { printf '%s\n' "$out"; echo "threads_test.sh: $got threads per rank, expected $want ($cores cores, 2 ranks)" >&2; exit 1; }
case "$out" in *oversubscribed*) [ "$cores" -ge 2 ] && { echo "threads_test.sh: warned without oversubscription" >&2; exit 1; } ;; esac
out=$(OMP_NUM_THREADS=$cores "$mpiexec" $bind "$npflag" 2 "$app" --variant cpu --iters 2 --reps 1 2>&1) || {
  printf '%s\n' "$out"; echo "threads_test.sh: the oversubscribed run failed" >&2; exit 1; }
n=$(printf '%s\n' "$out" | grep -c "2 ranks x $cores OpenMP thread.* on a node of $cores cores: oversubscribed")
[ "$n" -eq 1 ] || { printf '%s\n' "$out"; echo "threads_test.sh: $n warning lines, expected 1" >&2; exit 1; }
echo "threads_test.sh: unset -> $got threads per rank of $cores cores; OMP_NUM_THREADS=$cores -> one warning"
