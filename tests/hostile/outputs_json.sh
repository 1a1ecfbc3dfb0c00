#!/bin/sh
# outputs_json.sh PYTHON APP ARGS...: the --json file holds whole lines only.
# 1. A file whose last line was torn by an older build: the next two runs each append one
#    whole line on a line of its own (the torn one is not glued to), both valid JSON.
# 2. A value with bytes that are not UTF-8 (OMP_WAIT_POLICY, recorded in params): the line
#    is still valid JSON, read with a strict UTF-8 decoder, the byte kept as \u00ff.
# 3. --json /dev/null is a fine place for the result (exit 0).
py=$1; app=$2; shift 2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "outputs_json.sh: $*" >&2; exit 1; }
printf '{"schema":"kit.result/1","app":"to' > "$dir/r.json"
"$app" "$@" --json "$dir/r.json" > /dev/null || fail "first run failed"
"$app" "$@" --json "$dir/r.json" > /dev/null || fail "second run failed"
"$py" - "$dir/r.json" <<'PY' || fail "torn line: the records are not whole"
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
assert lines[0] == b'{"schema":"kit.result/1","app":"to', lines[0]
assert lines[-1] == b"", "no newline at the end"
assert len(lines) == 4, len(lines)
for l in lines[1:3]:
    assert json.loads(l.decode("utf-8"))["schema"] == "kit.result/1"
print("torn line kept apart; 2 whole records")
PY
bad=$(printf 'a\377b')
OMP_WAIT_POLICY=$bad "$app" "$@" --json "$dir/u.json" > /dev/null 2>&1 || fail "run with a non-UTF-8 value failed"
"$py" - "$dir/u.json" <<'PY' || fail "non-UTF-8 value: the line is not valid JSON"
import json, sys
raw = open(sys.argv[1], "rb").read()
assert b"\\u00ff" in raw, "the byte is not escaped as \\u00ff"
r = json.loads(raw.decode("utf-8", "strict"))
assert r["params"]["omp_wait_policy"] == "a\u00ffb", r["params"]["omp_wait_policy"]
print("non-UTF-8 byte escaped; valid JSON")
PY
"$app" "$@" --json /dev/null > /dev/null || fail "--json /dev/null refused"
exit 0
