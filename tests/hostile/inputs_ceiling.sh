#!/bin/sh
# inputs_ceiling.sh LAPLACE: the ceiling cache (KIT_CEILING_CACHE, common/src/ceiling.c) is a
# shortcut, so a cache that cannot be used is ignored with one warning and the ceiling is
# measured; the run itself passes (exit 0). Before, /dev/zero and a FIFO hung even
# "laplace --size 8". Cases: /dev/zero, a FIFO, a directory, a NUL byte, a value that is not
# a bandwidth; then a good cache is written by one run and read by the next (no measuring).
app=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "inputs_ceiling.sh: $*" >&2; exit 1; }
# run CACHE REGEX: exit 0, PASSED, and stderr matching REGEX (one warning at most).
run() {
  out=$(KIT_CEILING_CACHE=$1 timeout 40 "$app" --variant cpu --size 8 2>&1); rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 0 ] || fail "KIT_CEILING_CACHE=$1: exit code $rc, expected 0"
  printf '%s\n' "$out" | grep -Eq 'verification: +PASSED' || fail "KIT_CEILING_CACHE=$1: no PASSED"
  printf '%s\n' "$out" | grep -Eq -- "$2" || fail "KIT_CEILING_CACHE=$1: output does not match /$2/"
  [ "$(printf '%s\n' "$out" | grep -c 'warning: ceiling cache')" -le 1 ] || fail "more than one warning"
}
w='^kit: warning: ceiling cache'
run /dev/zero "$w '/dev/zero': is not a regular file \(a character device\); not used"
mkfifo "$dir/fifo" && run "$dir/fifo" "$w '$dir/fifo': is not a regular file \(a FIFO\); not used"
run "$dir" "$w '$dir': is a directory; not used"
# A good cache: the first run measures and appends one line, the second reads it.
run "$dir/good" 'measuring host-triad'
grep -Eq '^host-triad:.*	[0-9.]+$' "$dir/good" || fail "no host-triad line was cached"
out=$(KIT_CEILING_CACHE=$dir/good "$app" --variant cpu --size 8 2>&1)
printf '%s\n' "$out" | grep -q measuring && fail "the cached ceiling was measured again"
key=$(cut -f1 "$dir/good" | head -n 1)
printf '%s\tinf\n' "$key" > "$dir/inf"
run "$dir/inf" "$w '$dir/inf': line 1: 'inf' is not a bandwidth in GB/s; not used"
{ printf '%s\t1' "$key"; printf '\000'; printf '2.0\n'; } > "$dir/nul"
run "$dir/nul" "$w '$dir/nul': line 1: contains a NUL byte; not used"
exit 0
