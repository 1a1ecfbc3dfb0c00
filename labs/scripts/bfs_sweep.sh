#!/usr/bin/env bash
# bfs_sweep.sh MODE OUT.jsonl [BIN]: the bfs benchmark runs (lab 09). Every run validates each
# search by the Graph500 rules and the oracle's levels, and appends one kit.result/1 line.
#   single : one GPU, scale 22, 8 roots: every variant; naive with the per-edge kernel too
#   large  : one GPU, scale 24 (16.8 M vertices, 268 M edges), 8 roots: two-stream and
#            multi-thread, each search validated as at every size
#   dual   : two GPUs (2 ranks), scale 24 (BFS_DUAL_SCALE=22: a quarter of the time): two-stream with --transfer list and bitmap on a
#            1 x 2 grid (fold messages, parents reduced along the row) and a 2 x 1 grid
#            (expand messages, parents local), then auto on 1 x 2 and multi-thread --gpus 2
#   cpu    : this machine, cpu variant at scale 14 on 1, 2 and 4 ranks
#   direction : one GPU, scale 24 (BFS_DIRECTION_SCALE), 8 roots: naive and two-stream, each
#            --direction top-down and auto (Beamer's direction-optimising search)
#   direction-mt : multi-thread (1 GPU, then 2 and 4 GPUs at scale +1, +2: weak) and hybrid
#            (1 GPU + CPU share auto), each --direction top-down and auto
#   weak   : Bernaschi Fig. 9's weak scaling, scale 24 per GPU (BFS_WEAK_SCALE): 24, 25, 26 on
#            1, 2, 4 GPUs (those the machine has), two-stream on the default grid, top-down and auto
#            (BFS_WEAK_DIRECTIONS), BFS_WEAK_ROOTS roots (8)
# single, large and dual search top-down, as lab 09's tables (BFS_DIRECTION=auto: direction-
# optimising); cpu in its default direction (auto).
mode=$1; out=$2; bin=${3:-build/bin/bfs}
mkdir -p "$(dirname "$out")"  # labs/out/<lab>/ on a fresh clone
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep_lib.sh"
td="--direction ${BFS_DIRECTION:-top-down}"
case $mode in
  single)
    for v in naive two-stream hybrid; do run "$bin" --variant $v --scale 22 --roots 8 $td; done
    run "$bin" --variant multi-thread --gpus 1 --scale 22 --roots 8 $td
    BFS_DISCOVER=edges run "$bin" --variant naive --scale 22 --roots 8 $td ;;
  large)
    run "$bin" --variant two-stream --scale 24 --roots 8 $td
    run "$bin" --variant multi-thread --gpus 1 --scale 24 --roots 8 $td ;;
  dual)
    sc=${BFS_DUAL_SCALE:-24}
    for grid in 1x2 2x1; do for t in list bitmap; do
      run "$here/mpirun.sh" 2 "$bin" --variant two-stream --scale $sc --roots 8 --grid $grid --transfer $t $td
    done; done
    run "$here/mpirun.sh" 2 "$bin" --variant two-stream --scale $sc --roots 8 --grid 1x2 --transfer auto $td
    run "$bin" --variant multi-thread --gpus 2 --scale $sc --roots 8 $td ;;
  cpu)
    for np in 1 2 4; do
      OMP_NUM_THREADS=1 run "$here/mpirun.sh" $np "$bin" --variant cpu --scale 14 --roots 8
    done ;;
  direction)
    sc=${BFS_DIRECTION_SCALE:-24}
    for v in two-stream naive; do for d in top-down auto; do
      run "$bin" --variant $v --scale $sc --roots 8 --direction $d
    done; done ;;
  direction-mt)
    sc=${BFS_DIRECTION_SCALE:-24}
    for d in top-down auto; do
      run "$bin" --variant multi-thread --gpus 1 --scale $sc --roots 8 --direction $d
      run "$bin" --variant hybrid --scale $sc --roots 8 --direction $d
    done
    ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
    for g in 2 4; do [ "$g" -le "$ngpu" ] || continue; for d in top-down auto; do
      run "$bin" --variant multi-thread --gpus $g --scale $((sc + g / 2)) --roots 8 --direction $d
    done; done ;;
  weak)
    ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
    for step in 0 1 2; do
      np=$((1 << step)); sc=$(( ${BFS_WEAK_SCALE:-24} + step ))
      [ "$np" -le "$ngpu" ] || continue
      for d in ${BFS_WEAK_DIRECTIONS:-top-down auto}; do
        run "$here/mpirun.sh" $np "$bin" --variant two-stream --scale $sc --roots ${BFS_WEAK_ROOTS:-8} --direction $d
      done
    done ;;
  *) echo "usage: bfs_sweep.sh single|large|dual|cpu|direction|direction-mt|weak OUT.jsonl [BIN]" >&2; exit 2 ;;
esac
