#!/usr/bin/env bash
# lbm_sweep.sh MODE OUT.jsonl [BIN]: the lbm benchmark and validation runs (lab 07).
# Every run appends one kit.result/1 line to OUT.jsonl.
#   single : one GPU, naive / two-stream / multi-thread / hybrid at 128^3 (bitwise oracle on)
#            and 256^3 (oracle off: it is a serial CPU run of minutes; mass and symmetry stay)
#   cavity : one GPU, the Re = 1000 cavity on 96^3 (and 128^3) to steady state against
#            Albensoeder & Kuhlmann 2005; profiles as CSV beside OUT.jsonl
#   dual   : two GPUs, 256^3 per GPU weak scaling and 256^3 strong scaling, naive and two-stream
#            (the weak case also with --halo pack and --halo pack --comm cuda-aware, once spelled
#            --halo cuda-aware); two H200, 2026-11-24: labs/data/h200x2-2026-11-24/lbm-dual-*.jsonl
#            (cuda-aware skipped: MPI not CUDA-aware)
#   halo   : one GPU, two ranks sharing it: naive and two-stream with --halo copies, pack and
#            pack --comm cuda-aware (skipped, 77, where MPI is not CUDA-aware) at 128^3 (oracle
#            on) and 256^3 in total, 50 steps x 5 repetitions; the exchange's phases (halo_out,
#            mpi, halo_in) and the MPI bytes per step are in each JSON line (Risso Sec. 4.2)
#   cpu    : this machine, cpu variant at 64^3 on 1 and 2 ranks
#   grids  : 2 and 4 GPUs (as many as the machine has), two-stream on z-slabs and process grids
#            (--procs; Risso Figs. 6.6-6.7; the kit's weak-scaling target at 256^3 per GPU): weak at 256^3
#            per GPU and strong at 512^3 in total (LBM_GRIDS_STRONG=0: weak only), over
#            KIT_COMMS (ipc), oracle off (mass and symmetry stay), 50 steps x 5
mode=$1; out=$2; bin=${3:-build/bin/lbm}
mkdir -p "$(dirname "$out")"  # labs/out/<lab>/ on a fresh clone
here=$(cd "$(dirname "$0")" && pwd)
dir=$(dirname "$out")
. "$here/sweep_lib.sh"
case $mode in
  single)
    for n in 128 256; do
      extra=""; [ "$n" -ge 256 ] && extra=--skip-oracle
      for v in naive two-stream hybrid; do run "$bin" --variant $v --size $n --iters 50 --reps 5 $extra; done
      run "$bin" --variant multi-thread --gpus 1 --size $n --iters 50 --reps 5 $extra
    done ;;
  cavity)
    for n in 96 128; do
      run "$bin" --variant two-stream --size $n --re 1000 --lid-velocity 0.1 --until-steady 1e-6 \
        --check-every 500 --iters 400000 --skip-oracle --profile "$dir/cavity${n}_re1000.csv"
    done ;;
  grids)
    ngpu=$(nvidia-smi -L | wc -l)
    run "$bin" --variant two-stream --size 256 --iters 50 --reps 5 --skip-oracle
    [ "${LBM_GRIDS_STRONG:-1}" = 1 ] && run "$bin" --variant two-stream --size 512 --iters 50 --reps 5 --skip-oracle
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      if [ "$np" = 2 ]; then grids="1x1x2 1x2x1 2x1x1"; else grids="1x1x4 1x2x2 2x2x1"; fi
      for g in $grids; do
        IFS=x read -r P Q R <<< "$g"
        for c in ${KIT_COMMS:-ipc}; do
          run "$here/mpirun.sh" $np "$bin" --variant two-stream --comm $c --procs $g --size $((256 * P)),$((256 * Q)),$((256 * R)) --iters 50 --reps 5 --skip-oracle
          [ "${LBM_GRIDS_STRONG:-1}" = 1 ] && run "$here/mpirun.sh" $np "$bin" --variant two-stream --comm $c --procs $g --size 512 --iters 50 --reps 5 --skip-oracle
        done
      done
    done ;;
  dual)
    for v in naive two-stream; do
      run "$here/mpirun.sh" 2 "$bin" --variant $v --size 256,256,512 --iters 50 --reps 5 --skip-oracle
      run "$here/mpirun.sh" 2 "$bin" --variant $v --size 256 --iters 50 --reps 5 --skip-oracle
      for h in pack "pack --comm cuda-aware"; do
        run "$here/mpirun.sh" 2 "$bin" --variant $v --halo $h --size 256,256,512 --iters 50 --reps 5 --skip-oracle
      done
    done
    run "$bin" --variant two-stream --size 256 --iters 50 --reps 5 --skip-oracle
    run "$bin" --variant multi-thread --gpus 2 --size 256,256,512 --iters 50 --reps 5 --skip-oracle ;;
  halo)
    for n in 128 256; do
      extra=""; [ "$n" -ge 256 ] && extra=--skip-oracle
      for v in naive two-stream; do
        for h in copies pack "pack --comm cuda-aware"; do
          run "$here/mpirun.sh" 2 "$bin" --variant $v --halo $h --size $n --iters 50 --reps 5 $extra
        done
      done
    done ;;
  cpu)
    run "$bin" --variant cpu --size 64 --iters 20 --reps 3
    OMP_NUM_THREADS=1 run "$here/mpirun.sh" 2 "$bin" --variant cpu --size 64 --iters 20 --reps 3 ;;
  *) echo "usage: lbm_sweep.sh single|cavity|dual|halo|cpu OUT.jsonl [BIN]" >&2; exit 2 ;;
esac
