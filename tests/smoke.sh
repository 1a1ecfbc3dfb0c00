#!/bin/sh
# smoke.sh JSON LAUNCH...: run an app (LAUNCH... ends with the binary and its flags) with
# --verify --json JSON, then validate the JSON line with check_json.py. Exit 77 (variant
# not available here) passes through so CTest reports the test as skipped.
json=$1; shift
rm -f "$json"
"$@" --verify --json "$json"; rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
exec python3 "$(dirname "$0")/check_json.py" "$json"
