#!/bin/sh
# expect.sh CODE REGEX CMD...: run CMD, pass if it exits with CODE and (when REGEX is not
# empty) its output matches REGEX. Exit 77 from CMD, when not expected, means "skipped"
# (no GPU here) and is passed through so CTest marks the test skipped.
code=$1; regex=$2; shift 2
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 77 ] && [ "$code" -ne 77 ]; then exit 77; fi
if [ "$rc" -ne "$code" ]; then
  echo "expect.sh: exit code $rc, expected $code" >&2; exit 1
fi
if [ -n "$regex" ] && ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect.sh: output does not match /$regex/" >&2; exit 1
fi
exit 0
