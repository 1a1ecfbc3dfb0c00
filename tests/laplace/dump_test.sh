#!/bin/sh
# dump_test.sh OUT NX NY NZ ITERS LAUNCH...: run the app (LAUNCH..., which ends with the
# laplace binary and its flags) with --dump OUT, then compare OUT with check_dump.py.
out=$1; nx=$2; ny=$3; nz=$4; it=$5; shift 5
rm -f "$out"
"$@" --size "$nx,$ny,$nz" --iters "$it" --dump "$out"; rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
exec python3 "$(dirname "$0")/check_dump.py" "$nx" "$ny" "$nz" "$it" "$out"
