#!/bin/sh
# hash_test.sh MPIEXEC NPFLAG BFS ARGS...: the generated edge list must be the same for 1, 2
# and 4 ranks (and any grid): run the app each way and compare the printed edge_list_hash.
# The value itself is not checked (the code under test computed it); only its agreement.
mpiexec=$1; npflag=$2; bfs=$3; shift 3
first=""
for np in 1 2 4; do
  out=$("$mpiexec" "$npflag" "$np" "$bfs" "$@" 2>&1) || { printf '%s\n' "$out"; echo "hash_test: $np ranks failed"; exit 1; }
  h=$(printf '%s\n' "$out" | sed -n 's/^edge_list_hash: *//p')
  [ -n "$h" ] || { printf '%s\n' "$out"; echo "hash_test: no edge_list_hash with $np ranks"; exit 1; }
  echo "$np ranks: edge_list_hash $h"
  if [ -z "$first" ]; then first=$h; elif [ "$h" != "$first" ]; then echo "hash_test: $np ranks differ"; exit 1; fi
done
echo "hash_test: identical"
