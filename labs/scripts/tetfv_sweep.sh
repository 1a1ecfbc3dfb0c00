#!/usr/bin/env bash
# tetfv_sweep.sh MODE OUT.jsonl [BIN]: the tetfv benchmark runs (lab 08). Every run appends
# one kit.result/1 line to OUT.jsonl. The large meshes skip the serial oracle (the row-sum,
# conservation and mode-decay checks stay); the tests check every variant bit for bit.
#   single : one GPU, box:150 (20.25 M cells, Paper III's size class): naive, two-stream,
#            hybrid auto, multi-thread; two-stream on the shuffled mesh without and with RCM
#   hybrid : one GPU, box:150, the CPU-fraction sweep 0..5% and auto (Paper III Table 1)
#   dual   : two GPUs, strong scaling of box:150: two-stream on 1 GPU, then naive and
#            two-stream on 2 ranks and multi-thread --gpus 2, and beside them the
#            communication-free bound (--no-exchange, Paper III) (measured on two
#            H200, 2026-11-24: labs/data/h200x2-2026-11-24/tetfv-dual-*.jsonl)
#   node   : all GPUs of the machine (N), box:150, Paper III's node against a rank per GPU: one
#            process driving the N GPUs and every core (hybrid --gpus N at CPU shares 1%, 2%
#            and auto, OMP_NUM_THREADS = all cores), against N ranks of hybrid (the cores split
#            between them, Paper III's Wilkes set-up), and the GPU-only schedules beside them
#            (two-stream on 1 GPU and on N ranks, multi-thread --gpus N)
#   cpu    : this machine, cpu variant on box:40, 1 and 2 ranks
mode=$1; out=$2; bin=${3:-build/bin/tetfv}
mkdir -p "$(dirname "$out")"  # labs/out/<lab>/ on a fresh clone
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep_lib.sh"
big="--mesh box:150 --iters 50 --reps 3 --skip-oracle"
case $mode in
  single)
    for v in naive two-stream hybrid; do run "$bin" --variant $v $big --reorder none; done
    run "$bin" --variant multi-thread --gpus 1 $big --reorder none
    # Memory order matters: a shuffled mesh as read, then reordered by reverse Cuthill-McKee
    # (METIS blocks take minutes of serial set-up at this size; see the README).
    run "$bin" --variant two-stream $big --shuffle --reorder none
    run "$bin" --variant two-stream --mesh box:100 --iters 50 --reps 3 --skip-oracle --shuffle --reorder rcm
    run "$bin" --variant two-stream --mesh box:100 --iters 50 --reps 3 --skip-oracle --shuffle --reorder none ;;
  hybrid)
    for f in 0 0.01 0.02 0.05 auto; do run "$bin" --variant hybrid --cpu-fraction $f $big --reorder none; done ;;
  dual)
    run "$bin" --variant two-stream $big --reorder none
    for v in naive two-stream; do run "$here/mpirun.sh" 2 "$bin" --variant $v $big --reorder none; done
    run "$bin" --variant multi-thread --gpus 2 $big --reorder none
    run "$here/mpirun.sh" 2 "$bin" --variant two-stream $big --reorder none --no-exchange --no-verify
    run "$bin" --variant multi-thread --gpus 2 $big --reorder none --no-exchange --no-verify ;;
  node)  # TETFV_NODE_MESH=box:100 for a shorter job (box:150's serial set-up takes 75 s a run)
    # nproc honours OMP_NUM_THREADS (gpu-suite.sh sets it per GPU): count without it.
    ngpu=$(nvidia-smi -L | wc -l); cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
    big="--mesh ${TETFV_NODE_MESH:-box:150} --iters 50 --reps 3 --skip-oracle"
    run "$bin" --variant two-stream $big --reorder none
    run "$here/mpirun.sh" "$ngpu" "$bin" --variant two-stream $big --reorder none
    run "$bin" --variant multi-thread --gpus "$ngpu" $big --reorder none
    for f in 0.01 0.02 auto; do
      OMP_NUM_THREADS=$cores run "$bin" --variant hybrid --gpus "$ngpu" --cpu-fraction $f $big --reorder none
      OMP_NUM_THREADS=$((cores / ngpu)) run "$here/mpirun.sh" "$ngpu" "$bin" --variant hybrid --cpu-fraction $f $big --reorder none
    done ;;
  cpu)
    run "$bin" --variant cpu --mesh box:40 --iters 20 --reps 3
    OMP_NUM_THREADS=1 run "$here/mpirun.sh" 2 "$bin" --variant cpu --mesh box:40 --iters 20 --reps 3 ;;
  *) echo "usage: tetfv_sweep.sh single|hybrid|dual|node|cpu OUT.jsonl [BIN]" >&2; exit 2 ;;
esac
