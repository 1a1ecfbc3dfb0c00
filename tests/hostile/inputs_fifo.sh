#!/bin/sh
# inputs_fifo.sh APP FLAG ARGS...: a FIFO named as an input file must be refused at once
# (exit 2, "is not a regular file (a FIFO)"), not block in open() waiting for a writer.
# The timeout is the "at once": a blocked reader is killed (exit 124) and the test fails.
app=$1; flag=$2; shift 2
command -v mkfifo > /dev/null || { echo "no mkfifo here"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/in" || { echo "cannot make a FIFO in $dir"; exit 77; }
out=$(timeout 20 "$app" "$flag" "$dir/in" "$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 2 ] || { echo "inputs_fifo.sh: exit code $rc, expected 2" >&2; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$flag '?$dir/in'?: is not a regular file \(a FIFO\)$" ||
  { echo "inputs_fifo.sh: no 'is not a regular file (a FIFO)' line" >&2; exit 1; }
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "inputs_fifo.sh: more than one line" >&2; exit 1; }
exit 0
