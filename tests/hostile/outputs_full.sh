#!/bin/sh
# outputs_full.sh WHAT APP ARGS...: a result that could not be written is a failed run.
# WHAT is "stdout" (the report to /dev/full) or an output flag (--json, --trace, --dump...)
# given /dev/full: exit 3 and a line naming what was lost and "No space left on device",
# never exit 0. /dev/full is the standard ENOSPC device; without it the test is skipped.
what=$1; app=$2; shift 2
[ -c /dev/full ] || { echo "no /dev/full here"; exit 77; }
if [ "$what" = stdout ]; then
  err=$(timeout 60 "$app" "$@" 2>&1 > /dev/full); rc=$?
  re="could not write the report to standard output: No space left on device"
else
  err=$(timeout 60 "$app" "$@" "$what" /dev/full 2>&1 > /dev/null); rc=$?
  re="$what: .*'/dev/full': No space left on device"
fi
printf '%s\n' "$err"
[ "$rc" -eq 3 ] || { echo "outputs_full.sh: exit code $rc, expected 3" >&2; exit 1; }
printf '%s\n' "$err" | grep -Eq -- "$re" || { echo "outputs_full.sh: stderr does not match /$re/" >&2; exit 1; }
exit 0
