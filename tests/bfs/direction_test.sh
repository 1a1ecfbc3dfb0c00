#!/bin/sh
# direction_test.sh OUT CMD...: run CMD (a bfs command line, with its launcher) with
# --direction top-down, bottom-up and auto, each dumping the first search's parents to
# OUT.<direction>.bin; each run must pass its validation (exit 0), and the three parent
# arrays must be identical: a bottom-up level takes the smallest frontier neighbour of each
# vertex in its block and the row's MIN the smallest over the row, as top-down does.
# Exit 77 (skipped) when the run does (a GPU variant on a machine without a GPU).
out=$1; shift
for d in top-down bottom-up auto; do
  "$@" --direction "$d" --dump-parents "$out.$d.bin" > "$out.$d.log" 2>&1
  rc=$?
  if [ "$rc" -eq 77 ]; then cat "$out.$d.log"; exit 77; fi  # a GPU variant without a GPU
  [ "$rc" -eq 0 ] || { echo "direction_test: --direction $d failed (exit $rc)"; cat "$out.$d.log"; exit 1; }
  grep -q "verification: *PASSED" "$out.$d.log" || { echo "direction_test: --direction $d did not pass"; exit 1; }
done
grep -q "direction: *bottom-up: 0 levels top-down" "$out.bottom-up.log" || {
  echo "direction_test: --direction bottom-up ran a level top-down"; exit 1; }
for d in bottom-up auto; do
  cmp "$out.top-down.bin" "$out.$d.bin" || { echo "direction_test: $d parents differ from top-down's"; exit 1; }
done
echo "direction_test: top-down, bottom-up and auto passed with identical parents"
