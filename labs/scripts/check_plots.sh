#!/usr/bin/env bash
# check_plots.sh [PYTHON]: the labs never touch committed data. Runs every lab's plot script
# on its shipped data into a temporary folder (a nested one that does not exist yet, since a
# missing output folder used to crash five of them), once more with the default --outdir
# (labs/out/<lab>/, git-ignored), and fails when `git status --porcelain` of the repository
# differs before and after, or when a script fails or writes nothing. PYTHON defaults to
# python3 on PATH, the interpreter the labs' commands use (labs/README.md). Without
# matplotlib only the scripts that need just the standard library run (their PNGs left out),
# and the check then exits 77 (skipped) even when they pass; outside a git checkout it exits
# 77 at once. Registered in ctest as labs_plots_leave_tree_clean (label cpu).
set -u
py=${1:-python3}
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check_plots.sh: $root is not a git checkout: skipped"
  exit 77
fi
have_mpl=1
"$py" -c "import matplotlib" >/dev/null 2>&1 || have_mpl=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Untracked files count too: a stray output next to a lab is what this guards against.
status() { git -C "$root" status --porcelain --untracked-files=all; }
status > "$tmp/before"
fail=0 n=0
run() {  # run LAB ARGS...: the lab's plot.py from an unrelated folder, into $tmp/out/N-LAB/new/dir
  local lab=$1; shift
  n=$((n + 1))
  local out="$tmp/out/$n-$lab/new/dir"
  if ! (cd "$tmp" && "$py" "$root/labs/$lab/plot.py" --outdir "$out" "$@") > "$tmp/$lab.log" 2>&1; then
    echo "FAIL $lab: plot.py $* exited non-zero:"; tail -n 15 "$tmp/$lab.log"; fail=1; return
  fi
  if [ -z "$(ls -A "$out" 2>/dev/null)" ]; then
    echo "FAIL $lab: plot.py $* wrote nothing into its --outdir"; fail=1; return
  fi
  echo "ok   $lab: plot.py $* -> $(ls "$out" | wc -l) file(s)"
}
if [ "$have_mpl" = 1 ]; then
  for script in "$root"/labs/*/plot.py; do
    run "$(basename "$(dirname "$script")")"
  done
  run 05-scaling --two-gpu
else
  echo "check_plots.sh: $py has no matplotlib: only the scripts that need just the standard library"
  run 06-ising-sliced --no-png
  run 07-lbm-cavity
  run 08-tetfv-partitioning --no-png
  run 09-bfs-bitmap --no-png
  # lab 11 writes its plot only with matplotlib: its tables must still print.
  if ! (cd "$tmp" && "$py" "$root/labs/11-gpu-direct/plot.py" --outdir "$tmp/out/11") > "$tmp/11.log" 2>&1 ||
    ! grep -q "GLUP/s" "$tmp/11.log"; then
    echo "FAIL 11-gpu-direct: plot.py without matplotlib:"; tail -n 15 "$tmp/11.log"; fail=1
  else
    echo "ok   11-gpu-direct: tables only"
  fi
fi
# The default --outdir: labs/out/<lab>/ inside the checkout, which .gitignore must cover.
d="$root/labs/out/06-ising-sliced"
if ! (cd "$tmp" && "$py" "$root/labs/06-ising-sliced/plot.py" --data "$root/labs/data/h100-2026-11-23/ising.jsonl" \
  --name check-plots --no-png) > "$tmp/default.log" 2>&1 || [ ! -s "$d/check-plots.csv" ]; then
  echo "FAIL default --outdir: labs/06-ising-sliced/plot.py did not write $d/check-plots.csv:"
  tail -n 15 "$tmp/default.log"; fail=1
else
  echo "ok   default --outdir: labs/out/06-ising-sliced/check-plots.csv"
fi
rm -f "$d/check-plots.csv"
status > "$tmp/after"
if ! diff -u "$tmp/before" "$tmp/after"; then
  echo "FAIL: git status --porcelain changed while the plot scripts ran (above: - before, + after)"
  fail=1
fi
[ "$fail" = 0 ] || exit 1
if [ "$have_mpl" = 0 ]; then
  echo "check_plots.sh: the standard-library scripts pass; skipped the rest ($py has no matplotlib: labs/setup.sh)"
  exit 77
fi
echo "check_plots.sh: every lab's plot script ran and git status is unchanged"
