#!/usr/bin/env bash
# particles_sweep.sh MODE OUT.jsonl [BIN]: the particles benchmark runs (lab 10). Every run
# appends one kit.result/1 line; above --allpairs-max particles the oracle is off and the
# count, momentum and energy checks decide.
#   single : one GPU, 48^3 fcc cells (442,368 atoms), 100 steps: every variant and cpu
#   large  : one GPU, 100^3 fcc cells (4,000,000 atoms, the benchmark size), 100 steps: the GPU
#            variants that drive one GPU from one rank
#   dual   : two GPUs, weak scaling of the periodic box: 64^3 cells (1.05 M atoms) on one
#            GPU, 128 x 64 x 64 on two ranks (--ranks 2,1,1), naive and two-stream
#            (two H200, 2026-11-24: labs/data/h200x2-2026-11-24/particles-dual-*.jsonl)
#   images : one GPU, LAMMPS in.lj's system (fcc 0.8442, rc 2.5) at 80^3, 96^3 and 100^3
#            cells (2.05 M, 3.54 M, 4 M atoms), 100 steps: naive and two-stream with their
#            periodic images made on the device (--images device, the default), and
#            two-stream staged through the host (--images host) beside them
#   list   : one GPU, the same system with --neighbor list --skin 0.3 (in.lj's skin): naive
#            and two-stream at 80^3, 96^3 and 100^3 cells, beside two-stream's 27 cells
#   irregular: 1, 2 and 4 GPUs (as many as there are), strong scaling of Bernaschi Sec. 3.2's
#            irregular domains: the tube of 160 x 120 x 60 voxels (1.58 M atoms) and a porous
#            mask of the same grid (make_mask.py: 60% open, 2.76 M atoms), METIS-split over the
#            ranks, naive and two-stream, 100 steps; the JSON's messages and frontier counts are
#            the traffic (lab 10). PARTICLES_IRREGULAR_CELLS=NX,NY,NZ sets both grids
#   cpu    : this machine, cpu variant on 10^3 cells, 1 and 2 ranks
mode=$1; out=$2; bin=${3:-build/bin/particles}
mkdir -p "$(dirname "$out")"  # labs/out/<lab>/ on a fresh clone
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep_lib.sh"
case $mode in
  single)
    for v in cpu naive two-stream hybrid; do run "$bin" --variant $v --cells 48 --iters 100 --reps 3; done
    run "$bin" --variant multi-thread --gpus 1 --cells 48 --iters 100 --reps 3 ;;
  large)
    for v in two-stream naive; do run "$bin" --variant $v --cells 100 --iters 100 --reps 3; done
    run "$bin" --variant multi-thread --gpus 1 --cells 100 --iters 100 --reps 3 ;;
  dual)
    run "$bin" --variant two-stream --cells 64 --iters 100 --reps 3
    for v in naive two-stream; do
      run "$here/mpirun.sh" 2 "$bin" --variant $v --cells 128,64,64 --ranks 2,1,1 --iters 100 --reps 3
    done ;;
  images)
    for c in 80 96 100; do
      for v in two-stream naive; do run "$bin" --variant $v --cells $c --iters 100 --reps 3; done
      run "$bin" --variant two-stream --images host --cells $c --iters 100 --reps 3
    done ;;
  list)
    for c in 80 96 100; do
      run "$bin" --variant two-stream --cells $c --iters 100 --reps 3
      for v in two-stream naive; do run "$bin" --variant $v --neighbor list --skin 0.3 --cells $c --iters 100 --reps 3; done
    done ;;
  irregular)
    ngpu=$(nvidia-smi -L 2>/dev/null | wc -l); [ "$ngpu" -ge 1 ] || ngpu=1
    IFS=, read -r mx my mz <<< "${PARTICLES_IRREGULAR_CELLS:-160,120,60}"
    mask=$(dirname "$out")/porous-${mx}x${my}x${mz}.txt
    python3 "$here/make_mask.py" "$mask" "$mx" "$my" "$mz" >&2
    for dom in tube "$mask"; do
      size=(); [ "$dom" = tube ] && size=(--cells "$mx,$my,$mz")
      for np in 1 2 4; do
        [ "$np" -le "$ngpu" ] || continue
        for v in two-stream naive; do
          if [ "$np" = 1 ]; then run "$bin" --variant $v --domain "$dom" "${size[@]}" --iters 100 --reps 3
          else run "$here/mpirun.sh" $np "$bin" --variant $v --domain "$dom" "${size[@]}" --iters 100 --reps 3; fi
        done
      done
    done ;;
  cpu)
    run "$bin" --variant cpu --cells 10 --iters 50 --reps 3
    OMP_NUM_THREADS=1 run "$here/mpirun.sh" 2 "$bin" --variant cpu --cells 10 --iters 50 --reps 3 ;;
  *) echo "usage: particles_sweep.sh single|large|dual|images|list|irregular|cpu OUT.jsonl [BIN]" >&2; exit 2 ;;
esac
