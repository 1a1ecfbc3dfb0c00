#!/bin/sh
# inputs_mpmd.sh MODE MPIEXEC APP FLAG SRCDIR ARGS...: two ranks launched MPMD-style
# (MPICH's "mpiexec -n 1 A : -n 1 B"), each in its own folder, given the same relative file
# name, so one rank sees what a node-local or changed file shows it:
#   missing  rank 1's folder lacks the file: exit 2 on every rank with rank 1's reason (apps
#            that read on every rank), or a normal run (apps that read on rank 0 alone and
#            broadcast: rank 1 never opens it)
#   differs  rank 1's copy has other bytes: exit 2, "differs between ranks"
#   argv     not a file: rank 1 is given another value of FLAG: exit 2, "different
#            command-line arguments"
#   apps     not a file: rank 1 runs another app (ising, beside laplace) with the same
#            arguments: exit 2 the same way
# The timeout is what this test is about: before, these cases hung for ever.
mode=$1; mpiexec=$2; app=$3; flag=$4; src=$5; shift 5
name=$(basename "$app")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/a" "$dir/b"
case "$name $flag" in
  "tetfv --mesh") good=$src/tests/tetfv/data/good_two_tets_v41.msh; root_reads=1 ;;
  "bfs --graph") good=$src/tests/bfs/data/small.el; root_reads=1 ;;
  "particles --input") good=$src/tests/particles/inputs/good.txt; root_reads=0 ;;
  "particles --domain") good=$src/tests/particles/inputs/masks/channel.txt; root_reads=0 ;;
  "laplace --size") good= ; root_reads=0 ;;
  *) echo "inputs_mpmd.sh: no input file known for $name $flag" >&2; exit 1 ;;
esac
arg_a=in.txt; arg_b=in.txt
case "$mode" in
  missing) cp "$good" "$dir/a/in.txt" ;;
  differs) cp "$good" "$dir/a/in.txt"; { cat "$good"; echo "# one more line"; } > "$dir/b/in.txt" ;;
  argv) arg_a=8; arg_b=16 ;;
  apps) arg_a=8; arg_b=8; app_b=$(dirname "$app")/ising ;;
  *) echo "inputs_mpmd.sh: unknown mode $mode" >&2; exit 1 ;;
esac
out=$(timeout 40 "$mpiexec" -n 1 -wdir "$dir/a" "$app" "$flag" "$arg_a" "$@" : \
                            -n 1 -wdir "$dir/b" "${app_b:-$app}" "$flag" "$arg_b" "$@" 2>&1); rc=$?
printf '%s\n' "$out"
want=2
case "$mode" in
  missing)
    if [ "$root_reads" -eq 1 ]; then want=0; regex='verification: +PASSED'
    else regex="^$name: $flag '?in.txt'?: cannot open: No such file or directory \(on rank 1\)$"; fi ;;
  differs) regex="^$name: $flag '?in.txt'?: the file differs between ranks" ;;
  argv|apps) regex="^$name: the ranks were given different command-line arguments" ;;
esac
[ "$rc" -eq "$want" ] || { echo "inputs_mpmd.sh: exit code $rc, expected $want" >&2; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$regex" || { echo "inputs_mpmd.sh: output does not match /$regex/" >&2; exit 1; }
# One line from the job (the launcher's own report of a failed rank, which Open MPI prints
# and MPICH does not, is not the app's: lines of dashes and what they frame are skipped).
said=$(printf '%s\n' "$out" | awk '/^-+$/ { framed = !framed; next } !framed && NF' | grep -c .)
if [ "$want" -eq 2 ] && [ "$said" -ne 1 ]; then
  echo "inputs_mpmd.sh: expected exactly one line from the app, got $said" >&2; exit 1
fi
exit 0
