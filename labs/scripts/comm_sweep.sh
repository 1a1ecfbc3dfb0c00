#!/usr/bin/env bash
# comm_sweep.sh APP OUT.jsonl [BIN]: each app's step time per --comm transport on 2 and 4 GPUs
# (as many as the machine has) beside its 1-GPU baseline from the same job: the issue-20
# figures of labs/11-gpu-direct. One kit.result/1 line per run is appended to OUT; the
# efficiency is the 1-GPU throughput times the GPU count against the measured one.
#   laplace  two-stream, 512^3 per GPU (weak): laplace_sweep.sh comm
#   lbm      two-stream, 256^3 per GPU (weak); host with --halo copies and pack, the others pack
#   ising    two-stream --layout msc, L = 1024 (strong), unverified at this size (the oracle
#            would take minutes; the transports' tests verify at small L)
#   tetfv    two-stream, box:100 (strong; 6 M cells), --reorder none (box:150 takes 70-95 s of
#            serial set-up a run, too long for a device call per transport)
#   bfs      two-stream, scale BFS_COMM_SCALE (22) in total (strong), 8 roots, each search
#            validated; on P GPUs a P x 1 grid (expand messages only) and a 1 x P grid (fold only);
#            top-down, as lab 11's table (BFS_DIRECTION=auto: direction-optimising)
# KIT_COMMS="host ipc nccl nvshmem" (the default) names the transports to run.
set -u
app=$1; out=$2; bin=${3:-build/bin/$app}
mkdir -p "$(dirname "$out")"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep_lib.sh"
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
comms=${KIT_COMMS:-host ipc nccl nvshmem}
mpi() { local np=$1; shift; run "$here/mpirun.sh" "$np" "$bin" "$@"; }
case $app in
  laplace) exec bash "$here/laplace_sweep.sh" comm "$out" "$bin" ;;
  lbm)
    run "$bin" --variant two-stream --size 256 --iters 50 --reps 5 --skip-oracle
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      sz="--size 256,256,$((256 * np)) --iters 50 --reps 5 --skip-oracle"
      case " $comms " in *" host "*) mpi $np --variant two-stream --comm host --halo copies $sz ;; esac
      for c in $comms; do mpi $np --variant two-stream --comm $c --halo pack $sz; done
    done ;;
  ising)
    run "$bin" --variant two-stream --layout msc --size 1024 --iters 20 --reps 3 --no-verify
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      for c in $comms; do mpi $np --variant two-stream --layout msc --comm $c --size 1024 --iters 20 --reps 3 --no-verify; done
    done ;;
  tetfv)
    big="--mesh box:100 --iters 50 --reps 3 --skip-oracle --reorder none"
    run "$bin" --variant two-stream $big
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      for c in $comms; do mpi $np --variant two-stream --comm $c $big; done
    done ;;
  bfs)
    sc="--scale ${BFS_COMM_SCALE:-22} --roots 8 --direction ${BFS_DIRECTION:-top-down}"
    run "$bin" --variant two-stream $sc
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      for grid in ${np}x1 1x${np}; do
        for c in $comms; do mpi $np --variant two-stream --comm $c --grid $grid $sc; done
      done
    done ;;
  *) echo "usage: comm_sweep.sh laplace|lbm|ising|tetfv|bfs OUT.jsonl [BIN]" >&2; exit 2 ;;
esac
