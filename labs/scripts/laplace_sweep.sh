#!/usr/bin/env bash
# laplace_sweep.sh MODE JSONL [BIN]: the laplace benchmark runs behind the labs and the
# performance figures of the README. Every run verifies against the oracle and appends
# one kit.result/1 line to JSONL (plot and tabulate with labs/scripts/summarize.py).
#   single  one GPU: naive / two-stream / multi-thread / hybrid at 128^3..512^3  (labs 02, 04)
#   hybrid  one GPU, 512^3: the CPU-fraction sensitivity sweep 0..10%            (lab 04)
#   paper1  2 and 4 GPUs: Paper I Fig. 5, strong at 128^3..512^3 (PAPER1_SIZES): multi-thread's
#           assistants, its single-thread Baseline in both exchange orders, MPI two-stream (lab 03)
#   hynaive one GPU, 512^3: hybrid-naive (Paper II Listing 2) beside hybrid (Listing 3) at
#           CPU shares 0, 1, 2 and 5%                                            (lab 04)
#   dual    two GPUs: weak scaling at 512^3 and 256^3 per GPU, P2P vs staged     (labs 02, 03, 05)
#   trace   two GPUs: --trace timelines of naive, two-stream, hybrid, multi-thread  (lab 01)
#   tune    one GPU: kernel tile shapes at 512^3 (printed on stderr)
#   cpu     the CPU machine: cpu variant on 1 and 2 ranks                         (lab 05)
#   cpuhost the GPU machine's host: cpu at 256^3 and 512^3, --cpu-block auto and off, threads
#           unbound and OMP_PROC_BIND=spread, against the host triad measured in the same run
#           (--measure-ceilings)
#   hybrid-multi 1, 2, 4 GPUs: hybrid at CPU shares 1-5% in 1% steps and auto, 512^3 a GPU
#           (Paper II Fig. 5d), two-stream beside it                               (lab 04)
#   comm    2 and 4 GPUs (as many as the machine has): weak scaling at 512^3 per GPU of
#           two-stream over each --comm transport (host, ipc, nccl), beside the 1-GPU baseline
#   grids   2 and 4 GPUs: strong scaling of 512x512x1024 (Paper II Figs. 3-4), two-stream on
#           z-slabs against the 2D process grids (--procs), each over KIT_COMMS (host ipc)
set -u
mode=$1; out=$2; bin=${3:-build/bin/laplace}
mkdir -p "$(dirname "$out")"  # labs/out/<lab>/ on a fresh clone
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep_lib.sh"
mpi() { local np=$1; shift; run "$here/mpirun.sh" "$np" "$bin" "$@"; }
it=50
case "$mode" in
  single)
    for n in 128 256 512; do
      for v in naive two-stream hybrid; do run "$bin" --variant $v --size $n --iters $it --reps 5; done
      run "$bin" --variant multi-thread --gpus 1 --size $n --iters $it --reps 5
    done ;;
  hybrid)
    for f in 0 0.005 0.01 0.015 0.02 0.03 0.05 0.075 0.1; do
      run "$bin" --variant hybrid --cpu-fraction $f --size 512 --iters $it --reps 5
    done
    run "$bin" --variant hybrid --cpu-fraction auto --size 512 --iters $it --reps 5
    for f in 0.01 0.02; do   # the same shares with sleeping rather than spinning idle threads
      OMP_WAIT_POLICY=passive run "$bin" --variant hybrid --cpu-fraction $f --size 512 --iters $it --reps 5
    done
    run "$bin" --variant two-stream --size 512 --iters $it --reps 5 ;;
  hynaive)  # Paper II Listings 2 and 3 side by side: hybrid-naive and hybrid at the same CPU shares
    run "$bin" --variant two-stream --size 512 --iters $it --reps 5
    for f in 0 0.01 0.02 0.05; do
      for v in hybrid-naive hybrid; do run "$bin" --variant $v --cpu-fraction $f --size 512 --iters $it --reps 5; done
    done ;;
  paper1)  # Paper I Fig. 5 on 2 and 4 GPUs (as many as there are): strong, PAPER1_SIZES in total
    ngpu=$(nvidia-smi -L | wc -l)
    for n in ${PAPER1_SIZES:-128 256 512}; do
      run "$bin" --variant two-stream --size $n --iters $it --reps 5          # one GPU
      for g in 2 4; do
        [ "$g" -le "$ngpu" ] || continue
        run "$bin" --variant multi-thread --gpus $g --size $n --iters $it --reps 5
        for o in left-right pairwise; do
          run "$bin" --variant multi-thread --mt-scheme single --exchange-order $o --gpus $g --size $n --iters $it --reps 5
        done
        mpi $g --variant two-stream --size $n --iters $it --reps 5            # the MPI scheme
      done
    done ;;
  dual)
    for n in 256 512; do
      z=$((2 * n))
      run "$bin" --variant two-stream --size $n --iters $it --reps 5          # 1-GPU baseline
      for v in naive two-stream hybrid; do mpi 2 --variant $v --size $n,$n,$z --iters $it --reps 5; done
      run "$bin" --variant multi-thread --gpus 2 --size $n,$n,$z --iters $it --reps 5
      run "$bin" --variant multi-thread --gpus 2 --no-p2p --size $n,$n,$z --iters $it --reps 5
    done ;;
  comm)
    ngpu=$(nvidia-smi -L | wc -l)
    run "$bin" --variant two-stream --size 512 --iters $it --reps 5          # 1-GPU baseline
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      for c in ${KIT_COMMS:-host ipc nccl nvshmem}; do mpi $np --variant two-stream --comm $c --size 512,512,$((512 * np)) --iters $it --reps 5; done
    done ;;
  grids)
    ngpu=$(nvidia-smi -L | wc -l)
    run "$bin" --variant two-stream --size 512,512,1024 --iters $it --reps 5          # 1-GPU baseline
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      if [ "$np" = 2 ]; then grids="1x1x2 1x2x1 2x1x1"; else grids="1x1x4 1x2x2 2x2x1"; fi
      for g in $grids; do for c in ${KIT_COMMS:-host ipc}; do
        mpi $np --variant two-stream --comm $c --procs $g --size 512,512,1024 --iters $it --reps 5
      done; done
    done ;;
  tune)   # kernel tile shapes (LAPLACE_TILE=bx,by,run) at 512^3, one GPU, unverified
    for tile in 128,2,16,1 128,2,16,4 128,4,32,1 128,4,32,4 128,2,64,4 64,4,64,4 32,8,64,4 256,2,32,4; do
      LAPLACE_TILE=$tile "$bin" --variant two-stream --size 512 --iters $it --reps 5 --no-verify --json - |
        python3 -c "import json,sys; r=json.loads(sys.stdin.readlines()[-1]); print('tile $tile', round(r['bandwidth_GBs']), 'GB/s', round(100*r['fraction_of_ceiling'],1), '%')" >&2
    done ;;
  hyexp)  # hybrid CPU-side behaviour under OpenMP wait/bind policies (phases in the JSON)
    for env in "X=1" "OMP_WAIT_POLICY=active" "OMP_PROC_BIND=spread OMP_PLACES=cores" \
               "OMP_WAIT_POLICY=active OMP_PROC_BIND=spread OMP_PLACES=cores"; do
      for f in 0 0.01 auto 0.03; do
        env $env "$bin" --variant hybrid --cpu-fraction $f --size 512 --iters $it --reps 5 --json - |
          tail -1 | python3 -c "import json,sys; r=json.loads(sys.stdin.read()); ph=r['phases']; print('hyexp', '$env', '$f', round(r['time_s']['median']/$it*1e6), 'us/step', {k: round(v*1e6) for k,v in ph.items() if k.startswith('cpu') or k in ('wait_boundary','mpi')})" >&2
      done
    done
    for t in 16 8; do
      OMP_NUM_THREADS=$t "$bin" --variant cpu --size 512 --iters 5 --reps 3 --no-verify --json - | tail -1 |
        python3 -c "import json,sys; r=json.loads(sys.stdin.read()); print('hyexp cpu threads $t', round(r['bandwidth_GBs'],1), 'GB/s of', round(r['ceiling_GBs'],1))" >&2
    done ;;
  trace)  # Chrome traces of the profiled steps, next to JSONL, for the profiling lab
    dir=$(dirname "$out")/traces; mkdir -p "$dir"
    for v in naive two-stream hybrid; do mpi 2 --variant $v --size 256,256,512 --iters 10 --reps 1 --trace "$dir/$v-np2.json"; done
    run "$bin" --variant multi-thread --gpus 2 --size 256,256,512 --iters 10 --reps 1 --trace "$dir/multi-thread-gpus2.json" ;;
  cpuhost)  # the GPU machine's host: the cpu variant on OMP_NUM_THREADS cores against the host
            # triad of the same run (issue target: 85% with 16 threads), tuned and unblocked,
            # threads unbound and then bound one per core, spread (JSON params.omp_proc_bind)
    for n in 256 512; do
      for blk in auto off; do run "$bin" --variant cpu --size $n --iters 20 --reps 5 --cpu-block $blk --measure-ceilings; done
      for blk in auto off; do
        OMP_PROC_BIND=spread OMP_PLACES=cores run "$bin" --variant cpu --size $n --iters 20 --reps 5 --cpu-block $blk --measure-ceilings
      done
    done ;;
  hybrid-multi)  # Paper II Fig. 5d on 1, 2 and 4 GPUs: hybrid at CPU shares 0-5% in 1% steps
                 # and auto, weak at 512^3 a GPU, two-stream beside it
    ngpu=$(nvidia-smi -L | wc -l)
    for np in 1 2 4; do
      [ "$np" -le "$ngpu" ] || continue
      mpi $np --variant two-stream --size 512,512,$((512 * np)) --iters $it --reps 5
      for f in 0.01 0.02 0.03 0.04 0.05 auto; do
        mpi $np --variant hybrid --cpu-fraction $f --size 512,512,$((512 * np)) --iters $it --reps 5
      done
    done ;;
  cpu)
    run "$bin" --variant cpu --size 128 --iters 20 --reps 3
    OMP_NUM_THREADS=1 mpi 2 --variant cpu --size 128 --iters 20 --reps 3 ;;
  *) echo "usage: $0 single|hybrid|hynaive|paper1|dual|comm|grids|tune|hyexp|trace|cpu|cpuhost|hybrid-multi JSONL [BIN]" >&2; exit 2 ;;
esac
