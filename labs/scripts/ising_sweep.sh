#!/usr/bin/env bash
# ising_sweep.sh MODE OUT.jsonl [BIN]: the checkerboard-against-sliced runs of lab 06.
# Every run verifies against the oracle and appends one kit.result/1 line to OUT.
#   cpu    : this machine, cpu variant, 1 and 2 ranks, L = 32 and 64, both layouts
#   single : one GPU, naive and two-stream, L = 128, 256, 512, both layouts
#   large  : one GPU, naive and two-stream at L = 512 only, all three layouts (unverified)
#   msc    : one GPU, two-stream --layout msc: L = 512 with 8, 16, 24, 32, 64 slices per
#            run (ISING_BITS_RUN, in that order) and the launcher's own shape (unverified);
#            L = 256 with P threads a word and runs of B (ISING_BITS_PARTS:ISING_BITS_RUN =
#            1:4 2:4 4:4 4:8 4:16, unverified), then the launcher's shape verified; L = 128
#            likewise (the records do not name the shape: their order does)
#   dual   : two GPUs (2 ranks), naive and two-stream at L = 512 (unverified) and L = 64,
#            all three layouts; two H200, 2026-11-24: labs/data/h200x2-2026-11-24/ising-dual-*.jsonl
mode=$1; out=$2; bin=${3:-build/bin/ising}
mkdir -p "$(dirname "$out")"  # labs/out/<lab>/ on a fresh clone
here=$(cd "$(dirname "$0")" && pwd)
run() { "$@" --json "$out" > /dev/null || { echo "ising_sweep: failed: $*" >&2; exit 1; }; }
case $mode in
  cpu)
    for L in 32 64; do for layout in checkerboard sliced; do for np in 1 2; do
      OMP_NUM_THREADS=$(( $(nproc) / np > 0 ? $(nproc) / np : 1 )) \
        run "$here/mpirun.sh" "$np" "$bin" --variant cpu --size "$L" --layout "$layout" --iters 20 --reps 3
    done; done; done ;;
  single)
    for L in 128 256 512; do for layout in checkerboard sliced; do for v in naive two-stream; do
      # The oracle is a serial CPU run: verify the smaller lattices, time the largest alone.
      verify=--verify; [ "$L" -ge 512 ] && verify=--no-verify
      run "$bin" --variant "$v" --size "$L" --layout "$layout" --iters 50 --reps 5 $verify
    done; done; done ;;
  large)
    for layout in checkerboard sliced msc; do for v in naive two-stream; do
      run "$bin" --variant "$v" --size 512 --layout "$layout" --iters 50 --reps 5 --no-verify
    done; done ;;
  msc)
    for B in 8 16 24 32 64; do
      ISING_BITS_RUN=$B run "$bin" --variant two-stream --size 512 --layout msc --iters 50 --reps 5 --no-verify
    done
    run "$bin" --variant two-stream --size 512 --layout msc --iters 50 --reps 5 --no-verify
    for PB in 1:4 2:4 4:4 4:8 4:16; do
      ISING_BITS_PARTS=${PB%:*} ISING_BITS_RUN=${PB#*:} \
        run "$bin" --variant two-stream --size 256 --layout msc --iters 50 --reps 5 --no-verify
    done
    run "$bin" --variant two-stream --size 256 --layout msc --iters 50 --reps 5 --verify
    run "$bin" --variant two-stream --size 128 --layout msc --iters 50 --reps 5 --verify ;;
  dual)
    for layout in checkerboard sliced msc; do for v in naive two-stream; do
      run "$here/mpirun.sh" 2 "$bin" --variant "$v" --size 512 --layout "$layout" --iters 50 --reps 5 --no-verify
      run "$here/mpirun.sh" 2 "$bin" --variant "$v" --size 64 --layout "$layout" --iters 20 --reps 3
    done; done ;;
  *) echo "usage: ising_sweep.sh cpu|single|large|msc|dual OUT.jsonl [BIN]" >&2; exit 2 ;;
esac
