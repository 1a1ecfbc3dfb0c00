#!/bin/sh
# outputs_paths.sh APP FLAG ARGS...: output paths that cannot work are refused before the run
# (exit 2, one line naming the flag, the path and why), and the refusal leaves nothing
# behind (another output given beside it is not created): "" (empty), a directory, a name
# ending in '/', a FIFO (must not block), a missing directory. ARGS: the rest of a small run.
app=$1; flag=$2; shift 2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "outputs_paths.sh: $flag $*" >&2; exit 1; }
args="$*" # a small run's flags: no spaces inside them
# expect_run PATH REGEX: exit 2 and exactly one line "... FLAG: cannot open 'PATH' for
# writing: REGEX" (kit_check_output_file; --checkpoint's own check says "FLAG 'PATH': ...").
expect_run() { p=$1; re=$2; set -- $args; expect_path "$p" "$re" "$@"; }
expect_path() {
  p=$1; re=$2; shift 2
  # A good output beside the bad one: the refusal must not leave it (or anything) behind.
  if [ "$flag" = --trace ]; then other=--json; else other=--trace; fi
  out=$(cd "$dir" && timeout 20 "$app" "$@" $other "$dir/other.out" "$flag" "$p" 2>&1); rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 2 ] || fail "'$p': exit code $rc, expected 2"
  printf '%s\n' "$out" | grep -Eq -- "$flag(: cannot open)? '$p'( for writing)?: $re\$" || fail "'$p': no line matching /$re/"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "'$p': more than one line"
}
mkdir "$dir/sub"
expect_run "" "an empty file name"
# (--checkpoint's own check, kit_check_checkpoint_file, words these two its way.)
expect_run "$dir/sub" "is a (directory|folder).*"
expect_run "$dir/new/" "names a directory, not a file"
expect_run "$dir/missing/out" "directory '$dir/missing': No such file or directory"
if command -v mkfifo > /dev/null && mkfifo "$dir/fifo"; then
  expect_run "$dir/fifo" "is (not a regular file \\()?a FIFO.*"
fi
# Nothing was created by any refusal (the directory holds sub and the FIFO only).
left=$(cd "$dir" && ls -A | grep -v -x -e sub -e fifo)
[ -z "$left" ] || fail "left files behind: $left"
exit 0
