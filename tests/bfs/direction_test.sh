#!/bin/sh
# direction_test.sh OUT CMD...: run CMD (a bfs command line, with its launcher) with
# --direction top-down, bottom-up and auto, each dumping the first search's parents to
# OUT.<direction>.bin; each run must pass its validation (exit 0), and the three parent
# arrays must be identical: a bottom-up level takes the smallest frontier neighbour of each
# vertex in its block and the row's MIN the smallest over the row, as top-down does.
out=$1; shift
for d in top-down bottom-up auto; do
  "$@" --direction "$d" --dump-parents "$out.$d.bin" > "$out.$d.log" 2>&1 || {
    echo "direction_test: --direction $d failed (exit $?)"; cat "$out.$d.log"; exit 1; }
  grep -q "verification: *PASSED" "$out.$d.log" || { echo "direction_test: --direction $d did not pass"; exit 1; }
done
grep -q "direction: *bottom-up: 0 levels top-down" "$out.bottom-up.log" || {
  echo "direction_test: --direction bottom-up ran a level top-down"; exit 1; }
for d in bottom-up auto; do
  cmp "$out.top-down.bin" "$out.$d.bin" || { echo "direction_test: $d parents differ from top-down's"; exit 1; }
done
echo "direction_test: top-down, bottom-up and auto passed with identical parents"
