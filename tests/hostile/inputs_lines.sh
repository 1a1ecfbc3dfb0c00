#!/bin/sh
# inputs_lines.sh MODE APP FLAG SRCDIR ARGS...: a valid input file of the app with one line
# spoiled, which the reader must refuse with exit 2 and one line naming the file, the line
# and the rule, never cut, shorten or echo raw:
#   long    the line made 70000 bytes long (every reader's bound is smaller): "line K: line
#           too long" (before, tetfv cut it at 511 bytes and read another number)
#   nul     a NUL byte inside the line: "line K: contains a NUL byte" (before, bfs and
#           particles dropped the rest of the line)
#   escape  the file's name and the line carry an ESC sequence: the message shows \x1B, and
#           no raw control byte reaches the terminal
mode=$1; app=$2; flag=$3; src=$4; shift 4
name=$(basename "$app")
case "$name $flag" in
  "tetfv --mesh") good=$src/tests/tetfv/data/good_two_tets_v41.msh; k=16 ;;
  "bfs --graph") good=$src/tests/bfs/data/small.el; k=2 ;;
  "particles --input") good=$src/tests/particles/inputs/good.txt; k=3 ;;
  "particles --domain") good=$src/tests/particles/inputs/masks/channel.txt; k=3 ;;
  *) echo "inputs_lines.sh: no input file known for $name $flag" >&2; exit 1 ;;
esac
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
esc=$(printf '\033')
file=$dir/in.txt
[ "$mode" = escape ] && file="$dir/in${esc}[31m.txt"
line=$(sed -n "${k}p" "$good")
{
  sed -n "1,$((k - 1))p" "$good"
  case "$mode" in
    long) printf '%s' "$line"; head -c 70000 /dev/zero | tr '\000' '0'; printf '\n' ;;
    nul) printf '%s' "$line" | cut -c1-2 | tr -d '\n'; printf '\000'; printf '%s\n' "$line" | cut -c3- ;;
    escape) printf '%s' "$line" | cut -d' ' -f1-2 | tr -d '\n'; printf ' %s[31mX\n' "$esc" ;;
    *) echo "inputs_lines.sh: unknown mode $mode" >&2; exit 1 ;;
  esac
  sed -n "$((k + 1)),\$p" "$good"
} > "$file"
out=$(timeout 30 "$app" "$flag" "$file" "$@" 2>&1); rc=$?
printf '%s\n' "$out" | sed -n l
[ "$rc" -eq 2 ] || { echo "inputs_lines.sh: exit code $rc, expected 2" >&2; exit 1; }
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "inputs_lines.sh: expected exactly one line" >&2; exit 1; }
case "$mode" in
  long) regex="^$name: $flag '?$dir/in.txt'?: line $k: line too long \(the limit is [0-9]+ bytes\)$" ;;
  nul) regex="^$name: $flag '?$dir/in.txt'?: line $k: contains a NUL byte$" ;;
  escape) regex="^$name: $flag '?$dir/in\\\\x1B\[31m.txt'?: line $k: " ;;
esac
printf '%s\n' "$out" | grep -Eq -- "$regex" || { echo "inputs_lines.sh: output does not match /$regex/" >&2; exit 1; }
if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')"; then
  echo "inputs_lines.sh: a raw control byte reached the output" >&2; exit 1
fi
exit 0
